import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an answer says about the DPoP proof its request carried: that the server wants its nonce in it
/// (`use_dpop_nonce`, RFC 9449 §8 for authlog and authorization servers, §9 for resource servers), or that it
/// refused the proof (`invalid_dpop_proof`). Neither is cured by a refresh.
enum DPoPChallenge {
    /// The nonce to try again with: the answer is 400 or 401, says `use_dpop_nonce` (as its JSON `error`, or as the
    /// `error` of a `WWW-Authenticate: DPoP` challenge), and carries a `DPoP-Nonce`.
    static func retryNonce(_ data: Data, _ response: HTTPURLResponse) -> String? {
        guard response.statusCode == 400 || response.statusCode == 401,
            Self.error(data, response) == "use_dpop_nonce"
        else { return nil }
        return DPoPNonceCache.nonce(in: response)
    }

    /// Whether the answer refuses a DPoP proof (`use_dpop_nonce` or `invalid_dpop_proof`).
    static func refusesProof(_ data: Data, _ response: HTTPURLResponse) -> Bool {
        let error = Self.error(data, response)
        return error == "use_dpop_nonce" || error == "invalid_dpop_proof"
    }

    /// The answer's JSON `error`, else the `error` parameter of its `WWW-Authenticate` challenge.
    private static func error(_ data: Data, _ response: HTTPURLResponse) -> String? {
        if let code = APIConnection.errorCode(data) { return code }
        guard let challenge = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return nil }
        return Self.parameter("error", in: challenge)
    }

    /// The value of the auth parameter `name` (quoted or not) in `challenge`.
    static func parameter(_ name: String, in challenge: String) -> String? {
        let text = Substring(challenge)
        var searchFrom = text.startIndex
        while let found = text[searchFrom...].range(of: name, options: .caseInsensitive) {
            searchFrom = found.upperBound
            // A whole parameter name: after the scheme's space or a comma, then `=` (spaces allowed around it).
            let before = text[..<found.lowerBound].last
            guard before == nil || before == " " || before == "," || before == "\t" else { continue }
            var rest = text[found.upperBound...].drop { $0 == " " || $0 == "\t" }
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            if rest.first == "\"" {
                let value = rest.dropFirst()
                return String(value.prefix { $0 != "\"" })
            }
            return String(rest.prefix { $0 != "," && $0 != " " && $0 != "\t" })
        }
        return nil
    }
}

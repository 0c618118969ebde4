import Crypto
import Foundation

/// A DPoP proof (RFC 9449) checked as a server checks it, with nothing of the client's code: the header and claims
/// read by JSONSerialization, the ES256 signature verified by swift-crypto with the key the header's `jwk` names, and
/// that key's RFC 7638 thumbprint computed here.
struct CheckedProof: Sendable, Equatable {
    var jti: String
    var htm: String
    var htu: String
    var iat: Int
    var ath: String?
    var nonce: String?
    /// The `jwk`'s SHA-256 thumbprint (RFC 7638), computed from its `x` and `y`.
    var thumbprint: String
}

/// Checks DPoP proofs for the tests (``check(_:)``).
enum DPoPProofCheck {
    /// Why a proof is not one.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) { self.description = description }
    }

    /// The claims of `proof` when it is a compact JWS with exactly the header `typ` `dpop+jwt`, `alg` `ES256` and a
    /// public P-256 `jwk` (`kty`, `crv`, `x`, `y` and nothing else), whose signature verifies with that key and whose
    /// payload has only DPoP's claims, of the right types.
    /// - Throws: ``Failure`` naming the first check that failed.
    static func check(_ proof: String) throws -> CheckedProof {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw Failure("not three segments") }
        let header = try Self.object(parts[0], "header")
        let payload = try Self.object(parts[1], "payload")
        guard Set(header.keys) == ["typ", "alg", "jwk"] else { throw Failure("header members \(header.keys.sorted())") }
        guard header["typ"] as? String == "dpop+jwt" else { throw Failure("typ") }
        guard header["alg"] as? String == "ES256" else { throw Failure("alg") }
        guard let jwk = header["jwk"] as? [String: Any], Set(jwk.keys) == ["kty", "crv", "x", "y"] else {
            throw Failure("jwk members")
        }
        guard jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256", let x = jwk["x"] as? String,
            let y = jwk["y"] as? String, let xBytes = Self.decode(x), let yBytes = Self.decode(y),
            xBytes.count == 32, yBytes.count == 32
        else { throw Failure("jwk values") }
        let key = try P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        guard let signatureBytes = Self.decode(parts[2]), signatureBytes.count == 64 else {
            throw Failure("the signature is not 64 bytes of base64url")
        }
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        guard key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else {
            throw Failure("the signature does not verify")
        }
        guard Set(payload.keys).isSubset(of: ["jti", "htm", "htu", "iat", "ath", "nonce"]) else {
            throw Failure("payload members \(payload.keys.sorted())")
        }
        guard let jti = payload["jti"] as? String, let htm = payload["htm"] as? String,
            let htu = payload["htu"] as? String, let iat = payload["iat"] as? Int
        else { throw Failure("jti, htm, htu or iat") }
        if payload["ath"] != nil, !(payload["ath"] is String) { throw Failure("ath") }
        if payload["nonce"] != nil, !(payload["nonce"] is String) { throw Failure("nonce") }
        let jwkText = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return CheckedProof(
            jti: jti,
            htm: htm,
            htu: htu,
            iat: iat,
            ath: payload["ath"] as? String,
            nonce: payload["nonce"] as? String,
            thumbprint: Self.base64URL(Data(SHA256.hash(data: Data(jwkText.utf8))))
        )
    }

    /// `ath` for `accessToken`: the unpadded base64url of its SHA-256.
    static func ath(_ accessToken: String) -> String {
        Self.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8))))
    }

    /// Unpadded base64url.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64url text; `nil` for anything else (padding included).
    static func decode(_ text: String) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private static func object(_ segment: String, _ what: String) throws -> [String: Any] {
        guard let data = Self.decode(segment),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw Failure("the \(what) is not a base64url JSON object") }
        return object
    }
}

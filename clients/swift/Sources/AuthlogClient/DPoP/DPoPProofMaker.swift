import Foundation

/// Makes the DPoP proofs (RFC 9449 §4.2) of one key: compact JWSs with the header
/// `{"alg":"ES256","jwk":{…},"typ":"dpop+jwt"}` (the public key only) and the claims `jti` (16 random bytes, new for
/// every proof), `htm`, `htu`, `iat`, and `ath` and `nonce` when there are an access token and a server nonce.
struct DPoPProofMaker: Sendable {
    /// The key's JWK SHA-256 thumbprint (RFC 7638), which authlog binds the tokens to (`cnf.jkt`).
    let thumbprint: String
    private let key: any DPoPSigningKey
    /// The protected header, base64url-encoded: the same for every proof of the key.
    private let encodedHeader: String

    /// A maker of `key`'s proofs.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` when the key's public point is not 64 bytes.
    init(key: any DPoPSigningKey) throws(AuthlogClientError) {
        let point = key.publicKeyRawRepresentation
        guard point.count == 64 else {
            throw AuthlogClientError(.dpopKeyUnavailable, detail: "The DPoP key's public point is not P-256's.")
        }
        let x = ClientEncoding.base64URL(Array(point.prefix(32)))
        let y = ClientEncoding.base64URL(Array(point.suffix(32)))
        // The members in RFC 7638's order (lexicographic, no whitespace), which is also the thumbprint's input.
        let jwk = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        self.key = key
        self.thumbprint = ClientEncoding.base64URL(ClientCrypto.sha256(Array(jwk.utf8)))
        self.encodedHeader = ClientEncoding.base64URL(Array(#"{"alg":"ES256","jwk":\#(jwk),"typ":"dpop+jwt"}"#.utf8))
    }

    /// A new proof for a `method` request to `url`.
    /// - Parameters:
    ///   - method: The request's method, such as `POST`.
    ///   - target: The request's URL as DPoP names it.
    ///   - accessToken: The access token the request carries, hashed into `ath`; `nil` for none.
    ///   - nonce: The server's nonce, or `nil` for none.
    ///   - now: The time for `iat` (whole seconds).
    /// - Returns: The proof, for the request's `DPoP` header.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when no `jti` can be drawn, `.dpopKeyUnavailable` when
    ///   the key cannot sign.
    func proof(
        method: String,
        target: DPoPTarget,
        accessToken: String?,
        nonce: String?,
        now: Date = Date()
    ) throws(AuthlogClientError) -> String {
        let claims = Claims(
            jti: ClientEncoding.base64URL(try ClientCrypto.randomBytes(count: 16)),
            htm: method,
            htu: target.htu,
            iat: Int64(now.timeIntervalSince1970.rounded(.down)),
            ath: accessToken.map { ClientEncoding.base64URL(ClientCrypto.sha256(Array($0.utf8))) },
            nonce: nonce
        )
        let payload: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            payload = try encoder.encode(claims)
        } catch {
            throw AuthlogClientError(.dpopKeyUnavailable, detail: "The DPoP proof's claims cannot be encoded.")
        }
        let signingInput = self.encodedHeader + "." + ClientEncoding.base64URL(Array(payload))
        let signature: [UInt8]
        do {
            signature = try self.key.signature(of: Array(signingInput.utf8))
        } catch {
            throw AuthlogClientError(.dpopKeyUnavailable, detail: "The DPoP key cannot sign.")
        }
        guard signature.count == 64 else {
            throw AuthlogClientError(.dpopKeyUnavailable, detail: "The DPoP key made no ES256 signature.")
        }
        return signingInput + "." + ClientEncoding.base64URL(signature)
    }

    /// A proof's claims; `ath` and `nonce` are left out when `nil`.
    private struct Claims: Encodable {
        let jti: String
        let htm: String
        let htu: String
        let iat: Int64
        let ath: String?
        let nonce: String?
    }
}

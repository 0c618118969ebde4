public import AuthlogCore

/// Makes JWS compact tokens: `base64url(header).base64url(payload).base64url(signature)`.
public struct JWSSigner: Sendable {
    /// The signing key; its type fixes the algorithm.
    public let key: PrivateKey
    /// The `kid` written into every header.
    public let kid: String?

    /// Creates a signer.
    public init(key: PrivateKey, kid: String?) {
        self.key = key
        self.kid = kid
    }

    /// Signs `payload` (a JSON object) with header `alg`, `kid` (when set), `typ` (when given) and
    /// `extraHeader` members.
    /// - Throws: ``CryptoError`` `.internalFailure` if signing fails.
    public func sign(
        _ payload: JSONValue,
        type: String? = nil,
        extraHeader: [(name: String, value: JSONValue)] = []
    ) throws(CryptoError) -> String {
        var header: [(name: String, value: JSONValue)] = [("alg", .string(self.key.algorithm.rawValue))]
        if let kid = self.kid { header.append(("kid", .string(kid))) }
        if let type { header.append(("typ", .string(type))) }
        header += extraHeader
        let signingInput =
            Base64URL.encode(JSONValue.object(header).canonicalBytes) + "." + Base64URL.encode(payload.canonicalBytes)
        let signature = try self.key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}

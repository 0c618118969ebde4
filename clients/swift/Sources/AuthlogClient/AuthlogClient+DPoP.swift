extension AuthlogClient {
    /// The JWK SHA-256 thumbprint (RFC 7638, unpadded base64url) of the install's DPoP key: what authlog binds this
    /// install's sessions to (`cnf.jkt`), for display or support. The key is made and stored now if there is none.
    /// - Returns: The thumbprint, or `nil` when DPoP is off (``Configuration/usesDPoP``) or the token store keeps
    ///   no key.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the store cannot give the key, `.dpopKeyUnavailable` when
    ///   no usable key can be made.
    public func dpopKeyThumbprint() async throws -> String? {
        try await self.connection.dpop?.keys.current()?.thumbprint
    }
}

public import AuthlogCore

/// A DPoP proof (RFC 9449) whose signature and claims checked out for one request.
public struct DPoPProof: Sendable, Equatable {
    /// The JWK SHA-256 thumbprint (RFC 7638) of the proof's key: what tokens are bound to (`cnf.jkt`).
    public let thumbprint: String
    /// The proof's `jti`, at most ``DPoPProofVerifier/longestJTI`` bytes; unique per proof.
    public let jti: String
    /// The proof's `iat`.
    public let issuedAt: Timestamp
    /// The server nonce the proof carried, if any.
    public let nonce: String?
    /// The algorithm it was signed with.
    public let algorithm: SignatureAlgorithm

    /// What the replay ledger keeps of the proof: the SHA-256 of its key's thumbprint and its `jti`, so that two
    /// clients whose `jti`s happen to agree are not each other's replay, and no `jti` is stored as sent.
    public var replayKey: [UInt8] {
        SHA256.hash(Array("authlog dpop jti\u{0}\(self.thumbprint)\u{0}\(self.jti)".utf8))
    }

    /// Refuses the proof unless its key is the one tokens were bound to.
    /// - Throws: ``DPoPRefusal`` `.wrongKey`.
    public func requireKey(_ thumbprint: String) throws(DPoPRefusal) {
        guard ConstantTime.equals(Array(self.thumbprint.utf8), Array(thumbprint.utf8)) else {
            throw DPoPRefusal(.wrongKey, "the proof is signed by another key than the tokens are bound to")
        }
    }
}

/// The request a DPoP proof must name.
public struct DPoPRequest: Sendable {
    /// The HTTP method (`POST`).
    public let method: String
    /// The request's URL as the client addressed it (the server's public URL and the route).
    public let target: DPoPTarget
    /// The access token sent with the request (`Authorization: DPoP …`), which the proof's `ath` must hash.
    public let accessToken: String?

    /// Creates the request a proof is checked against.
    public init(method: String, target: DPoPTarget, accessToken: String? = nil) {
        self.method = method
        self.target = target
        self.accessToken = accessToken
    }
}

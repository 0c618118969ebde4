public import AuthlogCore

/// A JWS compact token whose signature checked out.
public struct VerifiedJWS: Sendable {
    /// The protected header.
    public let header: JSONValue
    /// The payload, parsed as a JSON object.
    public let payload: JSONValue
    /// The key that verified it.
    public let keyID: String?
}

/// Verifies JWS compact tokens with an algorithm pinned by the caller, never taken from the token.
///
/// Checks, in order: size (8 KiB by default); exactly three base64url segments (a five-segment JWE is
/// refused); a strict JSON header without duplicate names; `alg` equal to the pinned algorithm (`none`
/// never is); no `crit`, `jku`, `x5u`, `jwk`, `x5c` or `zip`; a key found by `kid` (required when the set
/// has several keys) whose type and declared `alg` fit; the signature; a strict JSON object payload.
public struct JWSVerifier: Sendable {
    /// The only algorithm accepted.
    public let algorithm: SignatureAlgorithm
    /// The keys tokens are verified with.
    public let keys: JWKSet
    /// The largest token accepted, in bytes.
    public var maximumSize: Int

    /// Header members that make a token unacceptable: authlog implements no extension (`crit`), takes keys
    /// only from the pinned key set (`jku`, `x5u`, `jwk`, `x5c`) and never decompresses (`zip`).
    public static let forbiddenHeaderMembers = ["crit", "jku", "x5u", "jwk", "x5c", "zip"]

    /// Creates a verifier for `algorithm` with `keys`.
    public init(algorithm: SignatureAlgorithm, keys: JWKSet, maximumSize: Int = 8192) {
        self.algorithm = algorithm
        self.keys = keys
        self.maximumSize = maximumSize
    }

    /// Verifies `token` and returns its header and payload.
    /// - Throws: ``CryptoError`` naming the check that failed.
    public func verify(_ token: String) throws(CryptoError) -> VerifiedJWS {
        guard token.utf8.count <= self.maximumSize else {
            throw CryptoError(.tooLarge, "the token is larger than \(self.maximumSize) bytes")
        }
        // One copy of the token's bytes; the segments are slices of it.
        let bytes = Array(token.utf8)
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw CryptoError(
                .malformed,
                segments.count == 5 ? "encrypted tokens (JWE) are not accepted" : "a JWS has three segments"
            )
        }
        guard let headerBytes = Base64URL.decode(bytes: segments[0]) else {
            throw CryptoError(.malformed, "the header is not base64url")
        }
        let header = try JOSEJSON.parse(headerBytes, what: "header")
        guard header.isObject else { throw CryptoError(.malformed, "the header is not a JSON object") }
        guard let alg = header["alg"]?.stringValue else { throw CryptoError(.malformed, "the header has no alg") }
        guard alg == self.algorithm.rawValue else {
            throw CryptoError(.unsupportedAlg, "alg \(alg == "none" ? "none" : "is not \(self.algorithm.rawValue)")")
        }
        for name in Self.forbiddenHeaderMembers where header[name] != nil {
            throw CryptoError(.forbiddenHeader, "the header carries \(name)")
        }
        if let kid = header["kid"], kid.stringValue == nil { throw CryptoError(.malformed, "kid must be a string") }
        let jwk = try self.keys.key(for: header["kid"]?.stringValue, algorithm: self.algorithm)
        guard jwk.key.algorithm == self.algorithm else {
            throw CryptoError(.keyMismatch, "the key is not a \(self.algorithm.keyType) key")
        }
        if let declared = jwk.declaredAlgorithm, declared != self.algorithm {
            throw CryptoError(.keyMismatch, "the key is declared for \(declared.rawValue)")
        }
        guard let signature = Base64URL.decode(bytes: segments[2]) else {
            throw CryptoError(.malformed, "the signature is not base64url")
        }
        guard !signature.isEmpty else { throw CryptoError(.invalidSignature, "the signature is empty") }
        let signingInput = Array(bytes[..<segments[1].endIndex])
        try jwk.key.verify(signature, for: signingInput, algorithm: self.algorithm)
        guard let payloadBytes = Base64URL.decode(bytes: segments[1]) else {
            throw CryptoError(.malformed, "the payload is not base64url")
        }
        let payload = try JOSEJSON.parse(payloadBytes, what: "payload")
        guard payload.isObject else { throw CryptoError(.malformed, "the payload is not a JSON object") }
        return VerifiedJWS(header: header, payload: payload, keyID: jwk.kid)
    }
}

public import AuthlogCore

/// Checks DPoP proofs (RFC 9449 §4.3) for one request, in order, each failure with its own reason:
/// size; three base64url segments of strict JSON; `typ` `dpop+jwt`; `alg` ES256 or EdDSA (never `none`, an
/// HMAC or RSA); no `crit`; a public `jwk` of `alg`'s type (private members refused, the point checked to lie
/// on the curve); the signature; then the claims: `jti` (1 to ``longestJTI`` bytes), `htm` and `htu` naming
/// the request, `iat` within ``maximumAge`` in the past and ``maximumSkew`` in the future, `ath` hashing the
/// access token sent with it, and the server's nonce when nonces are on.
///
/// Whether the `jti` was seen before is the caller's to ask (it needs the store); so is the binding
/// (``DPoPProof/requireKey(_:)``).
public struct DPoPProofVerifier: Sendable {
    /// The largest proof read, in bytes: a P-256 proof with a nonce and `ath` is under 1 KiB.
    public static let maximumSize = 4096
    /// The longest `jti` accepted, in bytes.
    public static let longestJTI = 128
    /// The algorithms accepted, as discovery advertises them (`dpop_signing_alg_values_supported`).
    public static let algorithms: [SignatureAlgorithm] = [.es256, .edDSA]

    /// How old a proof's `iat` may be, in seconds.
    public var maximumAge: Int64
    /// How far ahead of the server's clock a proof's `iat` may be, in seconds.
    public var maximumSkew: Int64

    /// Creates a verifier accepting proofs issued at most `maximumAge` seconds ago and at most `maximumSkew`
    /// seconds ahead.
    public init(maximumAge: Int64 = 60, maximumSkew: Int64 = 15) {
        self.maximumAge = maximumAge
        self.maximumSkew = maximumSkew
    }

    /// The instant after which `proof` no longer verifies (its `iat` past ``maximumAge``): how long the replay
    /// ledger must keep it.
    public func lifetimeEnd(of proof: DPoPProof) -> Timestamp {
        proof.issuedAt.adding(seconds: self.maximumAge + 1)
    }

    /// Verifies `proof` for `request` at `now`. `nonces` are the server's nonces, nil when nonces are off (a
    /// nonce the proof carries is then ignored).
    /// - Throws: ``DPoPRefusal`` naming the check that failed.
    public func verify(
        _ proof: String,
        for request: DPoPRequest,
        nonces: DPoPNonces? = nil,
        at now: Timestamp
    ) throws(DPoPRefusal) -> DPoPProof {
        let (payload, thumbprint, algorithm) = try Self.verifiedParts(of: proof)
        guard let jti = payload["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= Self.longestJTI else {
            throw DPoPRefusal(.malformed, "jti must be a string of 1 to \(Self.longestJTI) bytes")
        }
        guard let method = payload["htm"]?.stringValue else { throw DPoPRefusal(.malformed, "htm must be a string") }
        guard method == request.method else {
            throw DPoPRefusal(.methodMismatch, "htm is not the request's method \(request.method)")
        }
        guard let url = payload["htu"]?.stringValue else { throw DPoPRefusal(.malformed, "htu must be a string") }
        guard DPoPTarget(url) == request.target else {
            throw DPoPRefusal(.urlMismatch, "htu is not the request's URL \(request.target)")
        }
        let issuedAt = try Self.issuedAt(payload)
        let age = (now.microsecondsSinceEpoch - issuedAt.microsecondsSinceEpoch) / 1_000_000
        guard age <= self.maximumAge else {
            throw DPoPRefusal(.staleIssuedAt, "iat is more than \(self.maximumAge) seconds old")
        }
        guard -age <= self.maximumSkew else {
            throw DPoPRefusal(.futureIssuedAt, "iat is more than \(self.maximumSkew) seconds ahead")
        }
        if let token = request.accessToken {
            let expected = Base64URL.encode(SHA256.hash(Array(token.utf8)))
            guard let ath = payload["ath"]?.stringValue, ConstantTime.equals(Array(ath.utf8), Array(expected.utf8))
            else { throw DPoPRefusal(.accessTokenMismatch, "ath is not the hash of the access token sent") }
        }
        let nonce = payload["nonce"]?.stringValue
        if let nonces {
            guard let nonce else { throw DPoPRefusal(.missingNonce, "the server asks for a nonce") }
            guard nonces.accepts(nonce, at: now) else {
                throw DPoPRefusal(.staleNonce, "the nonce is not a current one")
            }
        }
        return DPoPProof(thumbprint: thumbprint, jti: jti, issuedAt: issuedAt, nonce: nonce, algorithm: algorithm)
    }

    /// The payload, the key's thumbprint and the algorithm of a proof whose form and signature checked out.
    private static func verifiedParts(
        of proof: String
    ) throws(DPoPRefusal) -> (payload: JSONValue, thumbprint: String, algorithm: SignatureAlgorithm) {
        guard proof.utf8.count <= Self.maximumSize else {
            throw DPoPRefusal(.tooLarge, "the proof is larger than \(Self.maximumSize) bytes")
        }
        let bytes = Array(proof.utf8)
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw DPoPRefusal(.malformed, "a proof is a JWS of three segments") }
        let header = try Self.object(segments[0], what: "header")
        guard header["typ"]?.stringValue == "dpop+jwt" else { throw DPoPRefusal(.wrongType, "typ must be dpop+jwt") }
        guard let name = header["alg"]?.stringValue, let algorithm = SignatureAlgorithm(rawValue: name),
            Self.algorithms.contains(algorithm)
        else {
            throw DPoPRefusal(.unsupportedAlgorithm, "alg must be one of ES256, EdDSA")
        }
        guard header["crit"] == nil else { throw DPoPRefusal(.malformed, "the header carries crit") }
        guard let jwk = header["jwk"], case .object = jwk else {
            throw DPoPRefusal(.invalidKey, "the header has no jwk object")
        }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k", "oth"] where jwk[member] != nil {
            throw DPoPRefusal(.privateKey, "the jwk carries private key material")
        }
        let expectedType = algorithm == .es256 ? "EC" : "OKP"
        guard jwk["kty"]?.stringValue == expectedType else {
            throw DPoPRefusal(.invalidKey, "the jwk is not a key for \(name)")
        }
        let cacheName = jwk.canonicalBytes
        let cached = DPoPKeyCache.shared.entry(named: cacheName)
        let key: PublicKey
        if let cached {
            key = cached.key
        } else {
            do {
                key = try PublicKey(jwkMembers: jwk)
            } catch {
                throw DPoPRefusal(.invalidKey, "the jwk is not a usable public key")
            }
        }
        guard key.algorithm == algorithm else { throw DPoPRefusal(.invalidKey, "the jwk is not a key for \(name)") }
        guard let signature = Base64URL.decode(bytes: segments[2]), !signature.isEmpty else {
            throw DPoPRefusal(.badSignature, "the signature is empty or not base64url")
        }
        do {
            try key.verify(signature, for: Array(bytes[..<segments[1].endIndex]), algorithm: algorithm)
        } catch {
            throw DPoPRefusal(.badSignature, "the signature does not verify with the jwk")
        }
        let payload = try Self.object(segments[1], what: "payload")
        if let cached { return (payload, cached.thumbprint, algorithm) }
        let thumbprint: String
        do {
            thumbprint = try key.jwkThumbprint()
        } catch {
            throw DPoPRefusal(.invalidKey, "the key cannot be exported")
        }
        DPoPKeyCache.shared.remember(DPoPKeyCache.Entry(key: key, thumbprint: thumbprint), named: cacheName)
        return (payload, thumbprint, algorithm)
    }

    /// A segment decoded as a strict JSON object.
    private static func object(_ segment: ArraySlice<UInt8>, what: String) throws(DPoPRefusal) -> JSONValue {
        guard let decoded = Base64URL.decode(bytes: segment) else {
            throw DPoPRefusal(.malformed, "the \(what) is not base64url")
        }
        let value: JSONValue
        do {
            value = try JOSEJSON.parse(decoded, what: what)
        } catch {
            throw DPoPRefusal(.malformed, "the \(what) is not strict JSON")
        }
        guard case .object = value else { throw DPoPRefusal(.malformed, "the \(what) is not a JSON object") }
        return value
    }

    /// The proof's `iat`, a NumericDate within the years a timestamp holds.
    private static func issuedAt(_ payload: JSONValue) throws(DPoPRefusal) -> Timestamp {
        guard case .number(let text)? = payload["iat"], let seconds = Double(text), seconds.isFinite,
            abs(seconds) < 1e11
        else { throw DPoPRefusal(.malformed, "iat must be a number of seconds") }
        return Timestamp(microsecondsSinceEpoch: Int64(seconds * 1_000_000))
    }
}

public import AuthlogCore

/// Server nonces for DPoP (RFC 9449 §8), derived from a secret and a time slot: every `serve` process of a
/// deployment that shares the secret issues and accepts the same nonces, with no table and nothing to keep in
/// step. A nonce names its slot and carries a truncated HMAC of it (`base64url(slot ‖ tag)`, 24 bytes); it is
/// accepted in its own slot and the next, so one handed out at the end of a slot still lasts a whole
/// ``rotationSeconds``, and rotation needs no coordination.
public struct DPoPNonces: Sendable {
    /// How long a slot lasts, in seconds: how often the nonce handed out changes.
    public let rotationSeconds: Int64
    private let key: [UInt8]

    /// Creates the nonces of `secret` (the service's data key), rotated every `rotationSeconds` (at least 10).
    /// - Throws: ``CryptoError`` `.internalFailure` when the key cannot be derived.
    public init(secret: [UInt8], rotationSeconds: Int64 = 300) throws(CryptoError) {
        self.rotationSeconds = max(rotationSeconds, 10)
        self.key = try HKDFSHA256.deriveKey(from: secret, salt: [], info: Array("authlog dpop nonces".utf8))
    }

    /// The nonce to hand out at `now` (`DPoP-Nonce`).
    public func current(at now: Timestamp) -> String {
        Base64URL.encode(self.nonce(slot: self.slot(at: now)))
    }

    /// Whether `nonce` is this deployment's nonce of the current slot at `now` or of the one before.
    public func accepts(_ nonce: String, at now: Timestamp) -> Bool {
        guard nonce.utf8.count <= 64, let bytes = Base64URL.decode(nonce), bytes.count == 24 else { return false }
        let slot = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let current = self.slot(at: now)
        guard slot == current || slot == current - 1 else { return false }
        return HMACSHA256.isValid(Array(bytes.suffix(16)), for: Array(bytes.prefix(8)), key: self.key)
    }

    private func slot(at now: Timestamp) -> Int64 {
        now.microsecondsSinceEpoch / 1_000_000 / self.rotationSeconds
    }

    /// The slot's eight bytes, big-endian, then the first 16 bytes of their HMAC.
    private func nonce(slot: Int64) -> [UInt8] {
        let slotBytes = (0..<8).map { UInt8(truncatingIfNeeded: slot >> (56 - 8 * $0)) }
        let tag = (try? HMACSHA256.authenticationCode(for: slotBytes, key: self.key)) ?? []
        return slotBytes + tag.prefix(16)
    }
}

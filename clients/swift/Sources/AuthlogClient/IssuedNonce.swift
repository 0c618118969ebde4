public import Foundation

/// A single-use nonce authlog issued (`POST /v1/nonces`), valid for 10 minutes by default.
public struct IssuedNonce: Sendable, Hashable {
    /// The raw nonce: give it to the provider's SDK (or its hash, for Apple: ``apple``) and send it as
    /// `raw_nonce` with the ID token.
    public let rawValue: String
    /// When authlog stops accepting it.
    public let expiresAt: Date

    /// Creates the nonce.
    public init(rawValue: String, expiresAt: Date) {
        self.rawValue = rawValue
        self.expiresAt = expiresAt
    }

    /// The nonce as Sign in with Apple takes it: set ``AppleNonce/hashed`` on the request.
    public var apple: AppleNonce { AppleNonce(rawValue: self.rawValue) }
}

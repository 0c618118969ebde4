import AuthlogCore
import AuthlogCrypto
import Foundation

/// How provider subjects and emails are kept: never in clear, always as HMAC-SHA-256 under a key that lives
/// outside the database, so that a small subject (a GitHub id) cannot be found again by trying values.
///
/// A subject hashes under a *generation*: 0 for its first registration, and one more after each deletion of
/// an account it belonged to. The deleted account's identity rows stay, released, so the next registration
/// finds generation 0 taken and uses 1 — a value nobody can tie to the old one without the key.
public struct IdentityHasher: Sendable {
    /// How many generations a subject may go through (accounts deleted and made again).
    static let maximumGenerations = 32

    private let key: [UInt8]

    /// Creates a hasher with a 32-byte key.
    public init(key: [UInt8]) { self.key = key }

    /// The key derived from the service's data key, when no subject key is configured.
    public static func derivedKey(fromDataKey dataKey: [UInt8]) -> [UInt8] {
        (try? HMACSHA256.authenticationCode(for: Array("authlog.subject-key.v1".utf8), key: dataKey))
            ?? SHA256.hash(dataKey + Array("authlog.subject-key.v1".utf8))
    }

    /// A fixed key for development without any configured key (``ServerComponents`` warns about it).
    public static let developmentKey = SHA256.hash(Array("authlog.development-subject-key".utf8))

    /// Hex HMAC of the provider and subject under `generation`.
    func subjectHash(provider: String, subject: String, generation: Int) -> String {
        var message = "authlog.subject.v2\u{0}\(provider)\u{0}\(subject)"
        if generation > 0 { message += "\u{0}\(generation)" }
        return self.mac(message)
    }

    /// Hex HMAC of an email, compared case-insensitively (the whole address lower-cased, trimmed).
    func emailHash(_ email: String) -> String {
        self.mac("authlog.email.v1\u{0}" + email.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The user id a first sign-in of this identity registers: a name-based (version 8) UUID, so two
    /// concurrent first sign-ins of one identity aim at the same `user-<id>` stream and one of them loses
    /// its expected-version check instead of creating a second user.
    static func registrationUserID(provider: String, subjectHash: String) -> UUID {
        UUID(version: 8, bytes: SHA256.hash(Array("authlog.user.v1\u{0}\(provider)\u{0}\(subjectHash)".utf8)))
    }

    /// The keyed hash a user's device is known by: of AuthlogClient's device id when the request carried one,
    /// else of the user agent's family and the client's network (its /24, or /48 for IPv6), so that a browser
    /// is one device per network. Bound to the user, so one device id gives every user a different key.
    func deviceKey(userID: UUID, deviceID: String?, family: String, address: IPAddress?) -> String {
        if let deviceID {
            return String(self.mac("authlog.device.v1\u{0}\(userID.lowercased)\u{0}id\u{0}\(deviceID)").prefix(32))
        }
        let network = address.map(Self.networkPrefix) ?? "none"
        return String(
            self.mac("authlog.device.v1\u{0}\(userID.lowercased)\u{0}ua\u{0}\(family)\u{0}\(network)").prefix(32)
        )
    }

    /// The /24 of an IPv4 address (an IPv4-mapped IPv6 one too: `::ffff:a.b.c.d`), the /48 of an IPv6 one, in hex.
    static func networkPrefix(_ address: IPAddress) -> String {
        let bytes = address.bytes
        let mapped =
            bytes.count == 16 && bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        if mapped { return Hex.encode(Array(bytes[12..<15])) }
        return Hex.encode(Array(bytes.prefix(bytes.count == 4 ? 3 : 6)))
    }

    private func mac(_ message: String) -> String {
        // HMAC fails only for an empty key, which the initialisers never make; fall back to a keyed SHA-256.
        let bytes = Array(message.utf8)
        return Hex.encode(
            (try? HMACSHA256.authenticationCode(for: bytes, key: self.key)) ?? SHA256.hash(self.key + bytes)
        )
    }
}

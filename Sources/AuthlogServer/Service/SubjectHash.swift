import AuthlogCore
import AuthlogCrypto
import Foundation

/// How a provider subject is kept: never in clear, always as a domain-separated SHA-256.
enum SubjectHash {
    /// Hex SHA-256 of `authlog.subject.v1`, the provider and the subject, NUL-separated.
    static func of(provider: String, subject: String) -> String {
        Hex.encode(SHA256.hash(Array("authlog.subject.v1\u{0}\(provider)\u{0}\(subject)".utf8)))
    }

    /// The user id a first sign-in of this identity registers: a name-based (version 8) UUID, so two
    /// concurrent first sign-ins of one identity aim at the same `user-<id>` stream and one of them loses
    /// its expected-version check instead of creating a second user.
    static func registrationUserID(provider: String, subjectHash: String) -> UUID {
        UUID(version: 8, bytes: SHA256.hash(Array("authlog.user.v1\u{0}\(provider)\u{0}\(subjectHash)".utf8)))
    }
}

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
        var bytes = SHA256.hash(Array("authlog.user.v1\u{0}\(provider)\u{0}\(subjectHash)".utf8))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

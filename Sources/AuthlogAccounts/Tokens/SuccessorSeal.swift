import AuthlogCore
import AuthlogCrypto
import Foundation

/// The answer one rotation gave, as kept for the refresh-token reuse grace window: enough to give the same
/// pair again and to record which rotation it came from.
struct RotationAnswer: Codable, Sendable, Equatable {
    /// The `event_id` of the `token.refreshed` event that issued the pair.
    var refreshedEventID: UUID
    /// The successor refresh token's id.
    var refreshTokenID: UUID
    /// The successor refresh token.
    var refreshToken: String
    /// When it expires.
    var refreshTokenExpiresAt: Timestamp
    /// The access token's `jti`.
    var accessTokenID: UUID
    /// The access token.
    var accessToken: String
    /// When it expires.
    var accessTokenExpiresAt: Timestamp
    /// The `signin.flagged` the rotation recorded, when it was judged unusual, and its kinds: a retry whose
    /// first answer was lost still raises the alert (the kinds are flagged once per session, so the retry's own
    /// judgement would not). Absent from boxes sealed before alerts were kept in them.
    var alertEventID: UUID? = nil
    /// The kinds of ``alertEventID``.
    var alertKinds: [SigninJudgement.Kind]? = nil
}

/// Seals a rotation's answer under the spent refresh token it replaced, so that only a holder of that token
/// can open it: the key is HKDF-SHA-256 of the token (which the database never holds, only its SHA-256),
/// the box AES-256-GCM with the token's id, family and session as associated data, so a box moved to another
/// row does not open either.
enum SuccessorSeal {
    private static let salt = Array("authlog.refresh_successor.v1".utf8)

    /// The box for `answer`, openable with `presentedToken`, the token `record` describes.
    /// - Throws: ``CryptoError`` when OpenSSL fails.
    static func seal(
        _ answer: RotationAnswer,
        presentedToken: String,
        record: RefreshTokenRecord
    ) throws(CryptoError) -> [UInt8] {
        let plaintext: [UInt8]
        do {
            plaintext = Array(try JSONEncoder().encode(answer))
        } catch {
            throw CryptoError(.internalFailure, "the rotation's answer could not be encoded")
        }
        var key = try Self.key(presentedToken, record: record)
        defer { Self.wipe(&key) }
        return try AESGCM.seal(plaintext, key: key, authenticating: Self.context(record)).combined
    }

    /// The answer in `sealed`, or `nil` when `presentedToken` does not open it (another token, another row, a
    /// damaged box): never a crash, never a partial answer.
    static func open(_ sealed: [UInt8], presentedToken: String, record: RefreshTokenRecord) -> RotationAnswer? {
        guard var key = try? Self.key(presentedToken, record: record) else { return nil }
        defer { Self.wipe(&key) }
        guard let box = try? AESGCM.SealedBox(combined: sealed),
            let plaintext = try? AESGCM.open(box, key: key, authenticating: Self.context(record))
        else { return nil }
        return try? JSONDecoder().decode(RotationAnswer.self, from: Data(plaintext))
    }

    private static func key(_ token: String, record: RefreshTokenRecord) throws(CryptoError) -> [UInt8] {
        try HKDFSHA256.deriveKey(
            from: Array(token.utf8),
            salt: Self.salt,
            info: Array("key\u{0}\(record.tokenID.lowercased)".utf8)
        )
    }

    private static func context(_ record: RefreshTokenRecord) -> [UInt8] {
        Array(
            "authlog.refresh_successor.v1\u{0}\(record.tokenID.lowercased)\u{0}\(record.familyID.lowercased)\u{0}"
                .utf8
        ) + Array(record.sessionID.lowercased.utf8)
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
    }
}

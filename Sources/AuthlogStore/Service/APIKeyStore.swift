public import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres

/// What an API key lets its caller do. A key has exactly one scope, and a route asks for exactly one.
public enum APIKeyScope: String, CaseIterable, Sendable {
    /// `POST /v1/events`: append events from other systems.
    case ingest
    /// Read the log: export, a user's sessions, reports.
    case audit
    /// Revoke sessions.
    case admin
}

/// A stored API key, without the key itself (only its SHA-256 is stored).
public struct APIKeyRecord: Sendable, Equatable {
    /// The key's name, which events caused through it carry as their actor.
    public var name: String
    /// What it may do.
    public var scope: APIKeyScope
    /// When it was created.
    public var createdAt: Timestamp
    /// When it was revoked, if it was.
    public var revokedAt: Timestamp?
}

/// The scoped API keys of `authlog.api_keys`: created and revoked by the command line, checked by the server.
public struct APIKeyStore: Sendable {
    /// The prefix of every key, so a leaked one is recognisable (and secret scanners can match it).
    public static let keyPrefix = "alk_"

    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Whether `name` is a valid key name: 1–64 of `A–Z a–z 0–9 . _ -`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                    || byte == 46 || byte == 95 || byte == 45
            }
    }

    /// The SHA-256 of a presented key, as stored.
    public static func hash(of key: String) -> [UInt8] { SHA256.hash(Array(key.utf8)) }

    /// Creates a key named `name` with `scope` and returns it: the only time it is ever shown.
    /// - Throws: ``StoreError`` `.invalidArgument` for a bad name, `.conflict` when the name is taken (revoked
    ///   names stay taken), or from the server.
    public func create(name: String, scope: APIKeyScope, at now: Timestamp = .now()) async throws -> String {
        guard Self.isValidName(name) else {
            throw StoreError(.invalidArgument, "a key name is 1 to 64 of A-Z a-z 0-9 . _ -")
        }
        let key: String
        do {
            key = Self.keyPrefix + Base64URL.encode(try SecureRandom.bytes(count: 32))
        } catch {
            throw StoreError(.server, "no random bytes for the key: \(error)")
        }
        let inserted = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.api_keys (name, scope, key_hash, created_at)
                VALUES (\(name), \(scope.rawValue), \(ByteaValue(Self.hash(of: key))), \(now))
                ON CONFLICT (name) DO NOTHING
                """
            ).affectedRows
        }
        guard inserted == 1 else {
            throw StoreError(.conflict, "a key named \(name) exists already (revoked names are not reused)")
        }
        return key
    }

    /// Every key, by name.
    /// - Throws: ``StoreError``.
    public func list() async throws -> [APIKeyRecord] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                "SELECT \(unescaped: Self.columns) FROM authlog.api_keys ORDER BY name"
            ).rows
        }
        return try rows.map(Self.record)
    }

    /// Revokes the key named `name`; returns false when no unrevoked key has that name.
    /// - Throws: ``StoreError``.
    public func revoke(name: String, at now: Timestamp = .now()) async throws -> Bool {
        try await self.pool.withConnection { connection in
            try await connection.query(
                "UPDATE authlog.api_keys SET revoked_at = \(now) WHERE name = \(name) AND revoked_at IS NULL"
            ).affectedRows == 1
        }
    }

    /// The stored key whose hash is `hash`, revoked or not; nil for an unknown key.
    /// - Throws: ``StoreError``.
    public func find(hash: [UInt8]) async throws -> APIKeyRecord? {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                "SELECT \(unescaped: Self.columns) FROM authlog.api_keys WHERE key_hash = \(ByteaValue(hash))"
            ).first
        }
        return try row.map(Self.record)
    }

    /// The columns ``record(_:)`` decodes, in order.
    private static let columns = "name, scope, created_at, revoked_at"

    private static func record(_ row: QueryRow) throws -> APIKeyRecord {
        guard let scope = APIKeyScope(rawValue: try row.decode(String.self, at: 1)) else {
            throw StoreError(.decoding, "authlog.api_keys holds an unknown scope")
        }
        return APIKeyRecord(
            name: try row.decode(String.self, at: 0),
            scope: scope,
            createdAt: try row.decode(Timestamp.self, at: 2),
            revokedAt: try row.decode(Timestamp?.self, at: 3)
        )
    }
}

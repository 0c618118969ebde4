import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
public import AuthlogStore
import Foundation

/// Why an operator or auditor request was refused (`audit.accessed`'s reason when its outcome is failure).
public enum APIKeyRefusal: String, Sendable, CaseIterable {
    /// No `Authorization: Bearer` key was sent.
    case missingKey = "missing_api_key"
    /// No key has the hash of the one sent.
    case unknownKey = "unknown_api_key"
    /// The key was revoked.
    case revokedKey = "revoked_api_key"
    /// The key is valid but its scope is not the one the route needs.
    case insufficientScope = "insufficient_scope"
    /// The key was right but the request's parameters were not; nothing was read.
    case invalidRequest = "invalid_request"
    /// What was asked for lies in months that retention dropped; nothing was read.
    case dropped = "dropped"
}

/// The gate of the operator and auditor routes: authenticates the caller's scoped API key and records every
/// read of the log as `audit.accessed` before anything is answered (PCI DSS 10.2.1.3: access to audit logs is
/// itself logged). A request without a valid key is counted per address and window and recorded by the
/// ``RefusalRecorder`` (the first at once, the rest as one event with the count), so that a client with no
/// key cannot grow the log one event per request; a valid key's requests are limited per key.
public struct OperatorAccess: Sendable {
    let keys: APIKeyStore
    let store: PostgresEventStore
    /// Where the audited reads run: the read replica when one is configured, else the primary.
    let reads: ReadDatabase
    /// The per-key limit and the recorder of refused requests.
    let limiter: RateLimiter

    /// Creates the gate over the key table and the store the audit events go to (always the primary), with
    /// the audited reads on `reads` and refusals counted by `limiter`.
    public init(keys: APIKeyStore, store: PostgresEventStore, reads: ReadDatabase, limiter: RateLimiter) {
        self.keys = keys
        self.store = store
        self.reads = reads
        self.limiter = limiter
    }

    /// Runs an audited read on the read database; returns its value and the replica's lag to record (not
    /// measured without `measuringLag`, for reads that are not recorded).
    /// - Throws: what `body` throws; the callers map store errors to answers.
    func read<T: Sendable>(
        measuringLag: Bool = true,
        _ body: @Sendable (Connection) async throws -> T
    ) async throws -> (value: T, lag: ReplicaLag?) {
        try await self.reads.read(measuringLag: measuringLag, body)
    }

    /// The actor an event names for a request made with the key `name`.
    static func actor(key name: String) -> String { "key:" + name }

    /// The key's name in an actor made by ``actor(key:)``.
    static func keyName(ofActor actor: String) -> String {
        actor.hasPrefix("key:") ? String(actor.dropFirst("key:".count)) : actor
    }

    /// The caller's actor (`key:NAME`) when `bearer` is an unrevoked key of `scope` within its rate limit.
    /// Otherwise counts the refused attempt (actor `key:NAME` for a known key, `anonymous` for a missing or
    /// unknown one) for its address's aggregated `audit.accessed` with outcome failure, and throws 401
    /// `invalid_api_key` (missing, unknown or revoked key) or 403 `insufficient_scope`; 429 `rate_limited` when
    /// the key has used up its bucket.
    func authorize(
        bearer: String?,
        scope: APIKeyScope,
        what: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> String {
        let refusal: APIKeyRefusal
        var actor = "anonymous"
        if let bearer, !bearer.isEmpty {
            let record: APIKeyRecord?
            do {
                record = try await self.keys.find(hash: APIKeyStore.hash(of: bearer))
            } catch {
                throw ServiceError.failure(error)
            }
            if let record {
                actor = Self.actor(key: record.name)
                if record.revokedAt != nil {
                    refusal = .revokedKey
                } else if record.scope != scope {
                    refusal = .insufficientScope
                } else {
                    try self.limiter.admit(apiKey: record.name, requestID: metadata.requestID)
                    return actor
                }
            } else {
                refusal = .unknownKey
            }
        } else {
            refusal = .missingKey
        }
        self.limiter.recorder.noteAccess(
            address: metadata.ip?.limitKey ?? "unknown",
            actor: actor,
            kind: refusal.rawValue,
            query: what
        )
        if refusal == .insufficientScope {
            throw ServiceError(
                .forbidden,
                "insufficient_scope",
                "This route needs an API key with scope \(scope.rawValue).",
                headers: [.wwwAuthenticate: "Bearer error=\"insufficient_scope\", scope=\"\(scope.rawValue)\""]
            )
        }
        throw ServiceError(
            .unauthorized,
            "invalid_api_key",
            "Send a valid, unrevoked API key as Authorization: Bearer.",
            headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""]
        )
    }

    /// Records one read (or a refused attempt) as `audit.accessed`, committed before the caller answers; `lag`
    /// notes a read served by the replica and how far behind it was.
    /// - Throws: 503 when the database is down, like every write.
    func record(
        actor: String,
        what: String,
        refusal: APIKeyRefusal? = nil,
        lag: ReplicaLag? = nil,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        do {
            let event = try metadata.envelope(
                stream: StreamName(category: "audit", id: "access"),
                outcome: refusal == nil ? .success : .failure,
                reason: refusal?.rawValue,
                at: .now(),
                data: AuditAccessed(actor: actor, query: what, lag: lag)
            )
            try await self.store.append(event)
        } catch {
            throw ServiceError.failure(error)
        }
    }
}

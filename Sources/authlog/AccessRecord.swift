import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads of the audit log from the command line are themselves audited (PCI DSS 10.2.1.3): each appends
/// `audit.accessed` naming the operating-system user and host and what was read, and waits for it to be
/// sealed, before anything is printed.
enum AccessRecord {
    /// `os:USER@HOST` for the user running the command, from the password database by the real user id
    /// (`$USER` is whatever the caller set), else `uid:N`.
    static var actor: String {
        let uid = getuid()
        var user = "uid:\(uid)"
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name {
            user = String(cString: name)
        }
        return "os:\(user)@\(ProcessInfo.processInfo.hostName)"
    }

    /// Appends `audit.accessed` for `what` (such as `export after=0 through=120`) on the primary at
    /// `conninfo`; with `refusal`, a refused attempt (outcome `failure`, that reason); with `lag`, a read the
    /// replica served, and how far behind it was. A failure is reported in one sentence with its exit code.
    static func record(_ what: String, refusal: String? = nil, lag: ReplicaLag? = nil, conninfo: String) async throws {
        try await reportingStoreErrors { try await self.append(what, refusal: refusal, lag: lag, conninfo: conninfo) }
    }

    /// ``record(_:refusal:lag:conninfo:)``, throwing the ``StoreError`` as it is (a process without the event key
    /// on a log that authenticates its events gets `.eventKey`).
    static func append(_ what: String, refusal: String? = nil, lag: ReplicaLag? = nil, conninfo: String) async throws {
        let event = try EventEnvelope(
            AuditAccessed(actor: self.actor, query: what, lag: lag),
            stream: StreamName(category: "audit", id: "access"),
            outcome: refusal == nil ? .success : .failure,
            reason: refusal
        )
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1),
            authenticator: try eventAuthenticator()
        )
        _ = try await store.appendSealed([AppendCommand(event)]).first?.get()
    }
}

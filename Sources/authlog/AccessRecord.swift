import AuthlogCore
import AuthlogStore
import Foundation

/// Reads of the audit log from the command line are themselves audited (PCI DSS 10.2.1.3): each appends
/// `audit.accessed` naming the operating-system user and host and what was read, and waits for it to be
/// sealed, before anything is printed.
enum AccessRecord {
    /// `os:USER@HOST` for the user running the command.
    static var actor: String {
        let user = ProcessInfo.processInfo.environment["USER"] ?? "uid:\(getuid())"
        return "os:\(user)@\(ProcessInfo.processInfo.hostName)"
    }

    /// Appends `audit.accessed` for `what` (such as `export after=0 through=120`).
    static func record(_ what: String, conninfo: String) async throws {
        let event = try EventEnvelope(
            AuditAccessed(actor: self.actor, query: what),
            stream: StreamName(category: "audit", id: "access")
        )
        let store = EventStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1))
        try await reportingStoreErrors { _ = try await store.appendSealed([AppendCommand(event)]).first?.get() }
    }
}

import ArgumentParser
import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog users unlock --provider P --subject-hash H`: lifts an identity's lock, as
/// `POST /v1/admin/identities/unlock` does, naming the operating-system user as the actor.
struct UnlockIdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Lift the lock of an identity locked after failed sign-ins.",
        discussion: """
            Records identity.unlocked with cause operator and actor os:USER@HOST, which also forgets the \
            identity's counted failures and back-off. An identity that is not locked is left alone and nothing \
            is recorded. The subject hash is the one in the identity's signin.failed and identity.locked events.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: "The provider name, as in the events.")
    var provider: String

    @Option(name: .customLong("subject-hash"), help: "The keyed subject hash (64 lowercase hexadecimal digits).")
    var subjectHash: String

    func run() async throws {
        guard IdentityLocks.isProviderName(self.provider) else {
            printError("--provider must be a provider name (1 to 64 letters, digits, '-', '_' or '.')")
            throw ExitCode(2)
        }
        guard IdentityLocks.isSubjectHash(self.subjectHash) else {
            printError("--subject-hash must be 64 lowercase hexadecimal digits")
            throw ExitCode(2)
        }
        let pool = ConnectionPool(conninfo: try await self.database.conninfo(migrating: false), maximumConnections: 2)
        let store = PostgresEventStore(pool: pool, authenticator: try eventAuthenticator())
        let locks = IdentityLocks(store: store, lockouts: IdentityLockoutQueries(pool: pool), policy: LockoutPolicy())
        let metadata = RequestMetadata(requestID: "cli-" + UUID.version7().lowercased)
        let unlocked: Bool
        do {
            unlocked = try await locks.unlock(
                provider: self.provider,
                subjectHash: self.subjectHash,
                actor: AccessRecord.actor,
                metadata: metadata
            )
        } catch {
            printError("\(error.errorDescription)")
            throw ExitCode(error.status.code == 503 ? 3 : 1)
        }
        try await reportingStoreErrors { try await store.sealPending() }
        print(unlocked ? "unlocked \(self.provider) \(self.subjectHash)" : "not locked: nothing recorded")
    }
}

import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog users unlock --provider P --subject-hash H`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct UnlockCommandTests {
    @Test func anOperatorLiftsALockOnceAndTheLogSaysWho() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let subjectHash = String(repeating: "ab", count: 32)
        let stream = IdentityLockout.streamName(provider: "oidc", subjectHash: subjectHash)
        let now = Timestamp.now()
        try await store.append(
            AppendCommand(
                events: [
                    try EventEnvelope(
                        IdentityLocked(
                            subjectHash: subjectHash,
                            failures: 10,
                            windowSeconds: 900,
                            level: 1,
                            lockedUntil: now.adding(seconds: 3_600).description
                        ),
                        stream: stream,
                        occurredAt: now,
                        outcome: .failure,
                        reason: "too_many_failures",
                        provider: "oidc"
                    )
                ],
                expectedVersions: [stream: .noStream]
            )
        )
        try await store.sealPending()
        let arguments = ["users", "unlock", "--provider", "oidc", "--subject-hash", subjectHash]
        let first = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "unlocked oidc \(subjectHash)\n")
        let second = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
        #expect(second.status == 0)
        #expect(second.stdout == "not locked: nothing recorded\n")

        let connection = try await Connection.connect(database.conninfo)
        let rows = try await connection.query(
            "SELECT stream, data->>'cause', data->>'actor' FROM authlog.events WHERE type = 'identity.unlocked'"
        ).rows
        #expect(rows.count == 1, "the second run records nothing")
        #expect(try rows.first?.decode(String.self, at: 0) == stream.rawValue)
        #expect(try rows.first?.decode(String.self, at: 1) == "operator")
        #expect(try rows.first?.decode(String.self, at: 2).hasPrefix("os:") == true)
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.identity_lockouts WHERE unlocked_at IS NOT NULL AND level = 0"
            ) == 1
        )

        for bad in [["--subject-hash", "ABC"], ["--subject-hash", String(repeating: "AB", count: 32)]] {
            let refused = try await CLIProcess.run(
                ["users", "unlock", "--provider", "oidc"] + bad,
                databaseURL: database.conninfo
            )
            #expect(refused.status == 2, "\(refused.status)")
            #expect(refused.stderr.contains("--subject-hash must be 64 lowercase hexadecimal digits"))
        }
        #expect(try await CLIProcess.run(["verify"], databaseURL: database.conninfo).status == 0)
    }
}

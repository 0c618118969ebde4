import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog witness-alarm list` and `authlog witness-alarm clear --witness NAME`: the witness alarms that stand
/// in the log (`audit.witness_alarm`), and the recorded command that clears one (`audit.witness_alarm_cleared`).
struct WitnessAlarmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness-alarm",
        abstract: "List the witness alarms that stand, or clear one.",
        discussion: """
            A witness that refused the log's checkpoint as contradicting one it holds (409 naming the size sent \
            or a larger one, or 422) raises an alarm: serve records it once as audit.witness_alarm, keeps the \
            request and the answer in log.checkpoint_directory/witness-alarms/, and stops submitting to that \
            witness, across restarts, until the alarm is cleared here.
            """,
        subcommands: [List.self, Clear.self]
    )

    /// `authlog witness-alarm list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print the witness alarms that stand, one a line."
        )

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let connection = try await reportingStoreErrors {
                try await Connection.connect(try await self.database.conninfo(migrating: false))
            }
            let alarms = try await reportingStoreErrors { try await WitnessAlarms.standing(on: connection) }
            guard !alarms.isEmpty else {
                print("no witness alarm stands")
                return
            }
            for alarm in alarms {
                print(
                    "\(alarm.witness): \(alarm.reason) at tree size \(alarm.treeSize), recorded \(alarm.raisedAt) "
                        + "(event \(alarm.eventID.lowercased)): \(alarm.detail)"
                )
            }
        }
    }

    /// `authlog witness-alarm clear --witness NAME`.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Clear a witness's alarm, recorded as audit.witness_alarm_cleared.",
            discussion: """
                Records audit.witness_alarm_cleared with actor os:USER@HOST and your note, sealed before it exits; \
                every serve process then submits to the witness again (within a second), and a new refusal is a \
                new alarm. Clear only once the contradiction is explained (docs/operations.md, "A witness \
                alarm"). A witness without a standing alarm is left alone and nothing is recorded.
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The witness's name, as in log.witnesses and the alarm.")
        var witness: String

        @Option(help: "Why the alarm may be cleared: what the investigation found.")
        var note: String

        func validate() throws {
            guard (1...200).contains(self.witness.utf8.count), !self.witness.contains(where: \.isWhitespace) else {
                throw ValidationError("--witness must be a witness name (1 to 200 characters, no spaces)")
            }
            guard (1...2000).contains(self.note.utf8.count) else {
                throw ValidationError("--note must say why, in 1 to 2000 bytes")
            }
        }

        func run() async throws {
            let pool = ConnectionPool(
                conninfo: try await self.database.conninfo(migrating: false),
                maximumConnections: 2
            )
            let store = PostgresEventStore(pool: pool, authenticator: try eventAuthenticator())
            let cleared: WitnessAlarms.Standing?
            do {
                cleared = try await reportingStoreErrors {
                    try await WitnessAlarms.clear(
                        witness: self.witness,
                        actor: AccessRecord.actor,
                        note: self.note,
                        requestID: "cli-" + UUID.version7().lowercased,
                        into: store
                    )
                }
            } catch is WrongExpectedVersion {
                printError("the witness's alarm changed while it was being cleared; list the alarms and try again")
                throw ExitCode(1)
            }
            try await reportingStoreErrors { try await store.sealPending() }
            guard let cleared else {
                print("no alarm stands for \(self.witness): nothing recorded")
                return
            }
            print(
                "cleared the alarm of \(self.witness) (event \(cleared.eventID.lowercased), tree size \(cleared.treeSize))"
            )
        }
    }
}

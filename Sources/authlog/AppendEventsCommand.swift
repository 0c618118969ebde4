import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `authlog append`: JSON lines of events on standard input.
struct AppendEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Append events read as JSON lines from standard input.",
        discussion: """
            One event per line with the envelope's field names (type, stream, occurred_at, outcome, …; see \
            docs/events.md). event_id and stream_version are made when absent; an event_id already stored is \
            not stored again. An event's data may hold at most 64 KiB of JSON, and a line at most 256 KiB. \
            Standard input is copied as it arrives to a temporary file in $TMPDIR (mode 0600, unlinked at \
            once, so it is gone when the command ends however it ends), and every line is checked: if any is \
            bad, the first 100 bad lines are reported with their numbers, all are counted, and nothing is \
            stored. Then the events are committed --batch-size at a time (\(Self.defaultBatchSize) by \
            default; one batch is committed while the one before it is sealed), and each commit is acknowledged \
            on standard output as one JSON line with the positions the events were sealed \
            at; memory is bounded by a batch, not by the input. An input of at most one batch is stored in one \
            transaction: all or nothing. If the database refuses a batch (a wrong expected stream version, say), \
            the batches acknowledged before it stay committed and nothing from that batch on is stored. Give \
            every event an event_id to make such a run safe to repeat: stored events are not stored twice. \
            --batch-size 0 commits everything in one transaction, with memory that grows with the input.
            """
    )

    /// The events of one transaction unless --batch-size says otherwise: about 10 MB of memory at a few
    /// kilobytes per parsed and prepared event.
    static let defaultBatchSize = 2000

    @Option(help: "Events per transaction (0: all in one transaction, holding every event in memory).")
    var batchSize = Self.defaultBatchSize

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard self.batchSize >= 0 else { throw ValidationError("--batch-size must be 0 or more") }
    }

    func run() async throws {
        let spool: IngestSpool
        let check: IngestCheck
        do {
            spool = try IngestSpool()
            try spool.fill(from: STDIN_FILENO)
            check = try IngestCheck.run(over: spool)
        } catch {
            printError("standard input could not be spooled: \(error); nothing was stored")
            throw ExitCode(1)
        }
        guard check.badLines == 0 else {
            for error in check.errors { printError(error) }
            if check.badLines > check.errors.count { printError("only the first \(check.errors.count) are shown") }
            printError("\(check.badLines) bad line(s); nothing was stored")
            throw ExitCode(1)
        }
        guard check.events > 0 else {
            printError("no events on standard input")
            return
        }
        // Three connections: the writer's, the sealer's, and the one that reads a sealed batch's positions.
        let pool = ConnectionPool(conninfo: try await self.database.conninfo(), maximumConnections: 3)
        let store = PostgresEventStore(pool: pool, authenticator: try eventAuthenticator())
        let pipeline = IngestPipeline(store: store, size: self.batchSize == 0 ? Int.max : self.batchSize)
        do {
            try await pipeline.run(try IngestBatches(spool: spool))
        } catch let error as JSONLineReader.Failure {
            printError("the spool could not be read: \(error)")
            throw ExitCode(1)
        } catch let stopped as IngestPipeline.Stopped {
            throw ExitCode(stopped.exitCode)
        }
    }
}

/// One committed chunk, printed as a JSON line.
struct Acknowledgement: Encodable {
    var firstLine: Int
    var lastLine: Int
    var firstPosition: Int64
    var lastPosition: Int64
    var stored: Int
    var alreadyStored: Int

    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}

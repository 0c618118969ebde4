import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog append`: JSON lines of events on standard input.
struct AppendEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Append events read as JSON lines from standard input.",
        discussion: """
            One event per line with the envelope's field names (type, stream, occurred_at, outcome, …; see \
            docs/events.md). event_id and stream_version are made when absent; an event_id already stored is \
            not stored again. An event's data may hold at most 64 KiB of JSON, and a line at most 256 KiB. \
            Every line is checked first: if any is bad, each bad line is reported with its number and nothing \
            is stored. Without --batch-size all events are committed in one transaction: all or nothing. With \
            --batch-size N they are committed N at a time and each commit is acknowledged on standard output as \
            one JSON line with the positions the events were sealed at; if the database then refuses a batch (a wrong expected stream version, say), the \
            batches acknowledged before it stay committed and nothing from that batch on is stored. Give every \
            event an event_id to make such a run safe to repeat: stored events are not stored twice.
            """
    )

    @Option(help: "Events per transaction (0: all in one transaction).")
    var batchSize = 0

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard self.batchSize >= 0 else { throw ValidationError("--batch-size must be 0 or more") }
    }

    func run() async throws {
        let lines = try IngestFile.read(FileHandle.standardInput.readDataToEndOfFile())
        guard lines.errors.isEmpty else {
            for error in lines.errors { printError(error) }
            printError("\(lines.errors.count) bad line(s); nothing was stored")
            throw ExitCode(1)
        }
        guard !lines.events.isEmpty else {
            printError("no events on standard input")
            return
        }
        let pool = ConnectionPool(conninfo: try await self.database.conninfo(), maximumConnections: 2)
        let store = PostgresEventStore(pool: pool, authenticator: try eventAuthenticator())
        let size = self.batchSize == 0 ? lines.events.count : self.batchSize
        var start = 0
        while start < lines.events.count {
            let chunk = Array(lines.events[start..<min(start + size, lines.events.count)])
            let result: AppendResult
            do {
                guard let sealed = await store.appendSealed([AppendCommand(events: chunk.map(\.event))]).first else {
                    throw StoreError(.server, "the store returned no result")
                }
                result = try sealed.get()
            } catch let error as StoreError {
                let line = error.eventIndex.map { chunk[$0].line }
                printError((line.map { "line \($0): " } ?? "") + error.description)
                printError("the events from line \(chunk[0].line) on were not stored")
                throw ExitCode(error.code == .connectionFailed ? 3 : 1)
            }
            let acknowledgement = Acknowledgement(
                firstLine: chunk[0].line,
                lastLine: chunk[chunk.count - 1].line,
                firstPosition: result.events.compactMap(\.position).min() ?? 0,
                lastPosition: result.lastPosition ?? 0,
                stored: result.events.filter { !$0.wasAlreadyStored }.count,
                alreadyStored: result.events.filter(\.wasAlreadyStored).count
            )
            FileHandle.standardOutput.write(Data((acknowledgement.jsonLine + "\n").utf8))
            start += size
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

/// The events of a JSON-lines input, each with its line number, and the lines that were refused.
struct IngestFile {
    /// The longest line read: four times the data limit leaves room for the envelope and for escapes.
    static let lineLimit = 4 * EventEnvelope.ingestDataLimit

    var events: [(line: Int, event: EventEnvelope)] = []
    var errors: [String] = []

    static func read(_ data: Data) throws -> IngestFile {
        var file = IngestFile()
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            if trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard trimmed.count <= Self.lineLimit else {
                file.errors.append(
                    "line \(lineNumber): is \(trimmed.count) bytes; a line may have at most \(Self.lineLimit)"
                )
                continue
            }
            do {
                let json = try JSONParser().parse(trimmed)
                file.events.append((lineNumber, try EventEnvelope(ingesting: json)))
            } catch {
                file.errors.append("line \(lineNumber): \(error)")
            }
        }
        return file
    }
}

import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog export`: sealed events in position order as JSON lines, for SIEMs and archives.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print sealed events after a position as JSON lines (one event per line).",
        discussion: """
            Each line is an event in the export format of docs/events.md: the envelope plus position, \
            its OWASP Logging Vocabulary name (owasp, when it has one), recorded_at, digest and leaf_hash; with \
            --format ocsf, the OCSF event a push sink of format ocsf sends for it. Without --limit it exports \
            everything sealed when it starts. The \
            cursor to resume from is printed last on standard error as `next: N`: run again with --after N and \
            nothing is missed or repeated. The read is recorded as audit.accessed (your OS user and host) \
            before anything is printed.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// The export format of docs/events.md.
        case jsonl
        /// OCSF 1.8.0 events with the log's evidence: the lines a push sink of format `ocsf` sends.
        case ocsf
    }

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions

    @Option(help: "Export the events after this position (0: from the start).")
    var after: Int64 = 0

    @Option(help: "At most this many events (default: everything sealed when the export starts).")
    var limit: Int64?

    @Option(help: "Only events of this type.")
    var type: String?

    @Option(name: .customLong("user-id"), help: "Only events of this user.")
    var userID: String?

    @Option(help: "Only events of this provider.")
    var provider: String?

    @Option(
        help: "The output format: jsonl (the export format) or ocsf (OCSF 1.8.0 events, as a push sink sends them)."
    )
    var format: Format = .jsonl

    @Option(help: "Export one whole month of the log (YYYY-MM) into --output, with a manifest for retention.")
    var month: String?

    @Option(help: ArgumentHelp("The directory for --month's file and manifest.", valueName: "dir"))
    var output: String?

    func run() async throws {
        if self.month != nil || self.output != nil {
            try await self.exportMonth()
            return
        }
        guard self.after >= 0, (self.limit ?? 1) >= 1 else {
            printError("--after must be 0 or more and --limit 1 or more")
            throw ExitCode(2)
        }
        let filter = try self.filter()
        let target = try await self.database.readTarget(self.replica)
        let after = self.after
        let opened: (connection: Connection, lag: ReplicaLag?, value: Int64)
        do {
            // A position beyond a replica's head may be on the primary: then the primary answers.
            opened = try await target.open { connection, _ in
                let head = try await EventReader().head(on: connection).size
                guard after <= head else {
                    throw StoreError(.outOfRange, "the log ends at position \(head); --after \(after) lies beyond it")
                }
                return head
            }
        } catch let error as StoreError where error.code == .outOfRange {
            printError(error.message)
            throw ExitCode(1)
        }
        let (connection, lag, head) = opened
        let summary = filter.summary
        try await AccessRecord.record(
            "export after=\(self.after) through=\(head)" + (self.limit.map { " limit=\($0)" } ?? "")
                + (summary.isEmpty ? "" : " " + summary) + (self.format == .ocsf ? " format=ocsf" : ""),
            lag: lag,
            conninfo: target.primary
        )
        let next = try await self.stream(filter: filter, through: head, on: connection)
        printError("next: \(next)")
    }

    /// Writes the month's events to `authlog-events-YYYY-MM.jsonl` in --output and then its manifest (the
    /// file's positions, count and SHA-256), which `authlog retention apply --exports` checks.
    private func exportMonth() async throws {
        let (month, directory) = try self.monthAndDirectory()
        let target = try await self.database.readTarget(self.replica)
        let (connection, lag, span) = try await target.open { connection, _ in
            try await LogMonths.span(of: month + "-01", on: connection)
        }
        let (events, first, last) = (span.events, span.firstPosition, span.lastPosition)
        guard span.hasEnded else {
            printError("\(month) is still being written (or has not begun); export a month that has ended")
            throw ExitCode(1)
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/" + ExportManifest.fileName(month: month)
        // The events name users, addresses and devices: only the owner reads the export (0600).
        let ownerOnly: [FileAttributeKey: Any] = [.posixPermissions: 0o600]
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: ownerOnly),
            let handle = FileHandle(forWritingAtPath: file)
        else {
            printError("cannot write \(file)")
            throw ExitCode(1)
        }
        try await AccessRecord.record(
            "export month=\(month) positions=\(first)…\(last)",
            lag: lag,
            conninfo: target.primary
        )
        if events > 0 {
            _ = try await self.stream(
                filter: EventFilter(),
                from: first - 1,
                through: last,
                limit: nil,
                to: handle,
                on: connection
            )
        }
        try handle.close()
        guard let digest = Retention.sha256(ofFile: file) else {
            printError("cannot read back \(file)")
            throw ExitCode(1)
        }
        let manifest = ExportManifest(
            month: month,
            firstPosition: first,
            lastPosition: last,
            events: events,
            file: ExportManifest.fileName(month: month),
            sha256: Hex.encode(digest),
            exportedAt: Timestamp.now().description,
            exportedBy: AccessRecord.actor
        )
        let manifestPath = try Self.write(manifest, in: directory, attributes: ownerOnly)
        print("exported \(events) events of \(month) (positions \(first)…\(last)) to \(file)")
        print("manifest \(manifestPath) sha256 \(manifest.sha256)")
    }

    /// --month and --output, checked: YYYY-MM, and no --after, --limit or filters beside them.
    private func monthAndDirectory() throws -> (month: String, directory: String) {
        guard let month = self.month, let directory = self.output else {
            printError("--month and --output go together")
            throw ExitCode(2)
        }
        guard self.after == 0, self.limit == nil, self.type == nil, self.userID == nil, self.provider == nil,
            self.format == .jsonl, month.utf8.count == 7, Timestamp(iso8601: month + "-01") != nil
        else {
            printError("--month takes YYYY-MM and no --after, --limit, --format or filters")
            throw ExitCode(2)
        }
        return (month, directory)
    }

    /// Writes `manifest` beside its file, with `attributes`, and returns its path.
    private static func write(
        _ manifest: ExportManifest,
        in directory: String,
        attributes: [FileAttributeKey: Any]
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let manifestPath = directory + "/" + ExportManifest.manifestName(month: manifest.month)
        guard
            FileManager.default.createFile(
                atPath: manifestPath,
                contents: try encoder.encode(manifest) + Data("\n".utf8),
                attributes: attributes
            )
        else {
            printError("cannot write \(manifestPath)")
            throw ExitCode(1)
        }
        return manifestPath
    }

    /// Prints the matching events after `after` up to position `head` (or `limit` of them); returns the cursor.
    private func stream(filter: EventFilter, through head: Int64, on connection: Connection) async throws -> Int64 {
        try await self.stream(
            filter: filter,
            from: self.after,
            through: head,
            limit: self.limit,
            to: FileHandle.standardOutput,
            on: connection
        )
    }

    /// Writes the matching events after `from` up to position `head` (or `limit` of them) to `output`;
    /// returns the cursor.
    private func stream(
        filter: EventFilter,
        from start: Int64,
        through head: Int64,
        limit: Int64?,
        to output: FileHandle,
        on connection: Connection
    ) async throws -> Int64 {
        var cursor = start
        var remaining = limit ?? Int64.max
        let progress = ProgressLine(label: "exported", total: head)
        defer { progress.finish() }
        while cursor < head && remaining > 0 {
            let size = Int(min(remaining, Int64(EventReader.maximumExportPage)))
            let page = try await reportingStoreErrors {
                try await EventReader().page(after: cursor, limit: size, filter: filter, on: connection)
            }
            let lines: [String]
            switch self.format {
            case .jsonl: lines = page.events.map(\.json)
            case .ocsf: lines = try await reportingStoreErrors { try await OCSFExport.lines(of: page, on: connection) }
            }
            var bytes: [UInt8] = []
            var passedHead = false
            for (event, line) in zip(page.events, lines) {
                guard event.position <= head else {
                    passedHead = true
                    break
                }
                bytes += Array(line.utf8)
                bytes.append(0x0A)
                cursor = event.position
                remaining -= 1
            }
            output.write(Data(bytes))
            // A short page, or one that reached past the starting head: every match up to the head is printed.
            if passedHead || page.events.count < size {
                cursor = head
            }
            progress.update(cursor)
        }
        return cursor
    }

    private func filter() throws -> EventFilter {
        var filter = EventFilter(provider: self.provider)
        if let type = self.type {
            guard let parsed = EventType(rawValue: type) else {
                printError("--type \(type) is not an event type of the catalogue")
                throw ExitCode(2)
            }
            filter.type = parsed
        }
        if let userID = self.userID {
            guard let parsed = UUID(uuidString: userID) else {
                printError("--user-id must be a UUID")
                throw ExitCode(2)
            }
            filter.userID = parsed
        }
        return filter
    }
}

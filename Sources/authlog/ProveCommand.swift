import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog prove`: an inclusion proof an auditor can check against a signed checkpoint.
struct ProveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prove",
        abstract: "Print the inclusion proof of an event as JSON.",
        discussion: """
            Give an event id or --position. The proof is for --tree-size, else for the latest signed checkpoint \
            that covers the event (printed with it, so the proof can be checked against a signed root), else for \
            the whole sealed log. Hashes are standard base64; leaf_index is position − 1 (RFC 9162). With \
            --receipt it prints the event's receipt instead: a c2sp.org/tlog-proof@v1 file (the event's canonical \
            bytes, its index and inclusion proof, and the latest signed checkpoint), checkable offline with the \
            log's verifier key; an event whose stored row no longer hashes to its leaf gets no receipt (exit 1). \
            The read is recorded as audit.accessed (your OS user and host).
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions

    @Argument(help: "The event id.")
    var eventID: String?

    @Option(help: "The event's position instead of its id.")
    var position: Int64?

    @Option(help: "The tree size to prove against.")
    var treeSize: Int64?

    @Flag(help: "Print the event's receipt (a c2sp.org/tlog-proof@v1 file) instead of JSON.")
    var receipt = false

    func validate() throws {
        guard (self.eventID == nil) != (self.position == nil) else {
            throw ValidationError("give either an event id or --position")
        }
        if let position, position < 1 { throw ValidationError("--position must be 1 or more") }
        if let treeSize, treeSize < 1 { throw ValidationError("--tree-size must be 1 or more") }
        if let eventID, UUID(uuidString: eventID) == nil { throw ValidationError("\(eventID) is not an event id") }
        if self.receipt, self.eventID == nil || self.treeSize != nil {
            throw ValidationError("--receipt takes an event id, and is for the latest signed checkpoint")
        }
    }

    func run() async throws {
        if self.receipt, let eventID = self.eventID.flatMap(UUID.init(uuidString:)) {
            try await self.printReceipt(of: eventID)
            return
        }
        let target = try await self.database.readTarget(self.replica)
        let (_, lag, output) = try await target.open { connection, _ in try await self.prove(on: connection) }
        let proved = output["position"]?.canonicalText ?? "?"
        try await AccessRecord.record(
            "proof inclusion position=\(proved) tree_size=\(output["tree_size"]?.canonicalText ?? "?")",
            lag: lag,
            conninfo: target.primary
        )
        print(output.canonicalText)
    }

    private func prove(on connection: Connection) async throws -> JSONValue {
        var position = self.position ?? 0
        if let eventID = self.eventID.flatMap(UUID.init(uuidString:)) {
            let rows = try await connection.query("SELECT position FROM authlog.log_leaves WHERE event_id = \(eventID)")
            guard let row = rows.first else {
                throw StoreError(.outOfRange, "event \(eventID.lowercased) is not in the sealed log")
            }
            position = try row.decode(Int64.self, at: 0)
        }
        var checkpoint: Checkpointer.Signed?
        if self.treeSize == nil, let latest = try await Checkpointer.stored(size: nil, on: connection),
            latest.size >= position
        {
            checkpoint = latest
        }
        let proof = try await LogProofs.inclusion(
            position: position,
            treeSize: self.treeSize ?? checkpoint?.size,
            on: connection
        )
        guard case .object(var members) = proof.json else { return proof.json }
        if let checkpoint { members.append(("checkpoint", .string(checkpoint.note))) }
        return .object(members)
    }

    /// Prints the receipt of `eventID`; an event not covered by a checkpoint yet, or one whose stored row no longer
    /// hashes to its leaf (the receipt would fail offline), exits 1 with one sentence.
    private func printReceipt(of eventID: UUID) async throws {
        let target = try await self.database.readTarget(self.replica)
        let receipt: LogReceipt
        let lag: ReplicaLag?
        do {
            let opened = try await target.open { connection, _ in
                try await ReceiptMaker.receipt(of: eventID, on: connection)
            }
            lag = opened.lag
            receipt = opened.value
        } catch let altered as ReceiptMaker.AlteredEvent {
            try await AccessRecord.record(
                "receipt event_id=\(eventID.lowercased)",
                refusal: "event_altered",
                conninfo: target.primary
            )
            printError("no receipt: \(altered)")
            throw ExitCode(1)
        }
        try await AccessRecord.record("receipt event_id=\(eventID.lowercased)", lag: lag, conninfo: target.primary)
        print(receipt.text, terminator: "")
    }
}

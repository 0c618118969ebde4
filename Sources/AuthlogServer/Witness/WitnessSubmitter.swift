import AuthlogCore
public import AuthlogPostgres
public import AuthlogProviders
import AuthlogStore
import AuthlogTransparency
import AuthlogWitness
import Foundation
public import Logging

/// Submits the log's latest checkpoint to each configured witness (C2SP tlog-witness `add-checkpoint`) and
/// stores the cosignatures that verify. Runs beside the write path, never in it: a pass reads the latest
/// checkpoint and, for each witness that is due, sends it with a consistency proof from the size it believes
/// the witness holds. At most one submission per witness per interval; failures back off (doubling, up to 64
/// intervals); a witness whose answers show a fork or a rollback is not asked again until restart.
public actor WitnessSubmitter {
    /// What the submitter knows of one witness.
    struct Peer {
        let witness: WitnessSettings.Witness
        /// The size the witness is believed to hold (from its last cosignature or its last 409).
        var believedSize: Int64 = 0
        /// The size it last cosigned for this log.
        var cosignedSize: Int64 = 0
        var consecutiveFailures = 0
        var nextAttempt = ContinuousClock.now
        /// Why submissions stopped, after a fork or rollback alarm.
        var alarm: String?
    }

    private let settings: WitnessSettings
    private let pool: ConnectionPool
    private let fetcher: any HTTPFetching
    private let metrics: WitnessMetrics
    private let logger: Logger
    private var peers: [String: Peer] = [:]
    private var loaded = false
    private var isPassing = false

    /// A submitter for `settings`' witnesses over the database `pool`, calling out through `fetcher`.
    public init(
        settings: WitnessSettings,
        pool: ConnectionPool,
        fetcher: any HTTPFetching = AsyncHTTPFetcher(timeout: .seconds(5), maximumResponseSize: 64 << 10),
        metrics: WitnessMetrics,
        logger: Logger
    ) {
        self.settings = settings
        self.pool = pool
        self.fetcher = fetcher
        self.metrics = metrics
        self.logger = logger
        for witness in settings.witnesses {
            self.peers[witness.name] = Peer(witness: witness)
            metrics.declare(witness.name)
        }
    }

    /// One pass: submits the latest checkpoint to every due witness, concurrently.
    public func pass() async {
        // Two services ask (every second, and right after a checkpoint is signed); the actor is re-entered
        // at each await, so one pass at a time, or outcomes could be applied out of order.
        guard !self.isPassing else { return }
        self.isPassing = true
        defer { self.isPassing = false }
        do {
            if !self.loaded { try await self.load() }
            guard let latest = try await Checkpointer.latest(pool: self.pool) else { return }
            self.metrics.recordCheckpoint(size: latest.size)
            let now = ContinuousClock.now
            let due = self.peers.values.filter {
                $0.alarm == nil && now >= $0.nextAttempt && $0.cosignedSize < latest.size
            }
            for peer in due { self.peers[peer.witness.name]?.nextAttempt = now + self.settings.interval }
            let outcomes = await withTaskGroup(of: (String, Outcome).self) { group in
                for peer in due {
                    group.addTask { (peer.witness.name, await self.submit(latest, to: peer)) }
                }
                var outcomes: [(String, Outcome)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            for (name, outcome) in outcomes {
                var outcome = outcome
                if case .cosigned(let line, let time) = outcome {
                    // Stored before it counts: a cosignature the database lacks is asked for again. One that
                    // cannot be stored fails alone; the other witnesses' outcomes still apply.
                    do {
                        guard time <= UInt64(Date().timeIntervalSince1970) + 86_400 else {
                            throw WitnessStateError(description: "the cosignature's time is more than a day ahead")
                        }
                        try await self.pool.withConnection {
                            try await CheckpointCosignatures.store(
                                treeSize: latest.size,
                                witness: name,
                                line: line,
                                cosignedAt: Int64(time),
                                on: $0
                            )
                        }
                    } catch {
                        outcome = .failed("the cosignature could not be stored: \(error)")
                    }
                }
                self.apply(outcome, to: name, checkpoint: latest)
            }
            if !outcomes.isEmpty { try await self.checkQuorum(latest) }
        } catch {
            self.logger.warning("witness submissions could not read the log", metadata: ["error": "\(error)"])
        }
    }

    /// What one submission ended with.
    enum Outcome: Sendable {
        case cosigned(line: String, time: UInt64)
        case failed(String)
        case alarm(String)
        /// The witness holds `size`: resend from there next time.
        case resync(Int64, String)
    }

    /// Each witness's cosigned size from the database, so a restart resumes where it stood.
    private func load() async throws {
        let latest = try await self.pool.withConnection { try await CheckpointCosignatures.latest(on: $0) }
        for entry in latest where self.peers[entry.witness] != nil {
            self.peers[entry.witness]?.believedSize = entry.treeSize
            self.peers[entry.witness]?.cosignedSize = entry.treeSize
            self.metrics.recordCosigned(entry.witness, size: entry.treeSize, at: entry.cosignedAt)
        }
        self.loaded = true
    }

    /// Sends `checkpoint` to `peer`, following one 409 with a resend from the size it names.
    private func submit(_ checkpoint: Checkpointer.Signed, to peer: Peer) async -> Outcome {
        var old = peer.believedSize
        for _ in 0..<2 {
            let outcome = await self.exchange(checkpoint, old: old, with: peer.witness)
            guard case .resync(let size, _) = outcome, size != old else { return outcome }
            old = size
        }
        return .failed("the witness answered 409 twice")
    }

    /// One `add-checkpoint` request from `old` and what its answer means.
    private func exchange(
        _ checkpoint: Checkpointer.Signed,
        old: Int64,
        with witness: WitnessSettings.Witness
    )
        async -> Outcome
    {
        let old = old > checkpoint.size ? 0 : old
        let body: [UInt8]
        do {
            body = try await self.requestBody(checkpoint, old: old)
        } catch {
            return .failed("cannot make the consistency proof from \(old): \(error)")
        }
        let response: OutboundResponse
        do {
            response = try await self.fetcher.fetch(
                OutboundRequest(
                    method: "POST",
                    url: witness.addCheckpointURL,
                    headers: [("Content-Type", "text/plain; charset=utf-8")],
                    body: body
                )
            )
        } catch {
            return .failed("\(error)")
        }
        return Self.interpret(response, old: old, checkpoint: checkpoint, witness: witness)
    }

    /// The meaning of a witness's answer, as C2SP tlog-witness defines it.
    static func interpret(
        _ response: OutboundResponse,
        old: Int64,
        checkpoint: Checkpointer.Signed,
        witness: WitnessSettings.Witness
    ) -> Outcome {
        let text = String(decoding: response.body.prefix(512), as: UTF8.self)
        switch response.status {
        case 200:
            guard let body = NoteText(checkpoint.note)?.body else { return .failed("the log's note does not parse") }
            for line in text.split(separator: "\n") {
                guard let signature = NoteText.signature(line), witness.verifier.matches(signature) else { continue }
                if let time = witness.verifier.timestamp(of: signature, body: body) {
                    return .cosigned(line: signature.line, time: time)
                }
                return .failed("the witness's cosignature does not verify with its key")
            }
            return .failed("the witness answered 200 without a cosignature by its key")
        case 409:
            let type = response.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(
                in: .whitespaces
            )
            guard type == "text/x.tlog.size", text.hasSuffix("\n"), let size = Int64(text.dropLast()), size >= 0,
                String(size) == text.dropLast()
            else { return .failed("the witness answered 409 without a text/x.tlog.size body") }
            if size > checkpoint.size {
                return .alarm(
                    "the witness holds size \(size), larger than the log's \(checkpoint.size): a rollback or fork"
                )
            }
            if size == old {
                return .alarm("the witness answered 409 naming the size \(size) that was sent: a fork")
            }
            return .resync(size, "the witness holds size \(size)")
        case 422:
            return .alarm("the witness found the checkpoint inconsistent with what it cosigned (422): \(text)")
        case 403:
            return .failed("the witness does not trust the log's key (403): \(text)")
        case 404:
            return .failed("the witness does not know the log's origin (404)")
        default:
            return .failed("the witness answered \(response.status)")
        }
    }

    /// `old <size>`, the proof lines, an empty line, the note.
    private func requestBody(_ checkpoint: Checkpointer.Signed, old: Int64) async throws -> [UInt8] {
        var proof: [[UInt8]] = []
        if old > 0, old < checkpoint.size {
            proof = try await self.pool.withConnection {
                try await LogProofs.consistency(from: old, to: checkpoint.size, on: $0).hashes
            }
        }
        let lines = proof.map { Data($0).base64EncodedString() + "\n" }.joined()
        return Array("old \(old)\n\(lines)\n\(checkpoint.note)".utf8)
    }

    private func apply(_ outcome: Outcome, to name: String, checkpoint: Checkpointer.Signed) {
        guard var peer = self.peers[name] else { return }
        switch outcome {
        case .cosigned(_, let time):
            peer.believedSize = checkpoint.size
            peer.consecutiveFailures = 0
            peer.cosignedSize = checkpoint.size
            self.metrics.recordCosigned(name, size: checkpoint.size, at: Int64(time))
            self.logger.debug("witness cosigned", metadata: ["witness": "\(name)", "tree_size": "\(checkpoint.size)"])
        case .resync(let size, let why):
            peer.believedSize = size
            self.fail(&peer, why)
        case .failed(let why):
            self.fail(&peer, why)
        case .alarm(let why):
            peer.alarm = why
            self.metrics.recordAlarm(name)
            self.metrics.recordFailure(name)
            self.logger.critical(
                "WITNESS ALARM: submissions to this witness stopped",
                metadata: ["witness": "\(name)", "tree_size": "\(checkpoint.size)", "why": "\(why)"]
            )
        }
        self.peers[name] = peer
    }

    private func fail(_ peer: inout Peer, _ why: String) {
        peer.consecutiveFailures += 1
        let factor = 1 << min(peer.consecutiveFailures - 1, 6)
        peer.nextAttempt = ContinuousClock.now + self.settings.interval * factor
        self.metrics.recordFailure(peer.witness.name)
        self.logger.warning(
            "witness submission failed",
            metadata: ["witness": "\(peer.witness.name)", "why": "\(why)", "failures": "\(peer.consecutiveFailures)"]
        )
    }

    /// Marks the checkpoint witnessed when the quorum's cosignatures are stored.
    private func checkQuorum(_ checkpoint: Checkpointer.Signed) async throws {
        guard let policy = self.settings.policy else { return }
        let note = try await self.pool.withConnection { try await CosignedCheckpoint.latest(on: $0) }
        guard let note, note.size == checkpoint.size, let result = policy.check(note: note.note), result.quorumMet
        else { return }
        self.metrics.recordWitnessed(size: checkpoint.size, at: Int64(Date().timeIntervalSince1970))
    }
}

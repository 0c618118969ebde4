import AuthlogCore
public import AuthlogPostgres
public import AuthlogProviders
public import AuthlogStore
import AuthlogTransparency
import AuthlogWitness
import Foundation
public import Logging

/// Submits the log's latest checkpoint to each configured witness (C2SP tlog-witness `add-checkpoint`) and
/// stores the cosignatures that verify. Runs beside the write path, never in it: a pass reads the latest
/// checkpoint and, for each witness that is due, sends it with a consistency proof from the size it believes
/// the witness holds. At most one submission per witness per interval; failures back off (doubling, up to 64
/// intervals).
///
/// A witness whose answer shows that it holds a checkpoint signed with the log's key that the log contradicts (a
/// 409 naming the size just sent or a larger one than the log's, or a 422) raises an alarm: the request sent and
/// the answer are kept in `<evidence directory>/witness-alarms/`, the alarm is recorded once as
/// `audit.witness_alarm` (``WitnessAlarms``: one event across passes, restarts and processes), and submissions
/// to that witness stop until an operator clears it (`authlog witness-alarm clear`, `audit.witness_alarm_cleared`).
/// The checkpoint signer goes on signing (docs/operations.md, "A witness alarm"). At start the witnessed size and
/// age come from the stored cosignatures, and the alarms that stand from the log.
public actor WitnessSubmitter {
    /// What the submitter knows of one witness.
    struct Peer {
        let witness: WitnessSettings.Witness
        /// The size the witness is believed to hold (from its last cosignature or its last 409).
        var believedSize: Int64 = 0
        /// The size it last cosigned for this log.
        var cosignedSize: Int64 = 0
        var consecutiveFailures = 0
        /// The current run of failures, until a cosignature ends it (``recordEpisode(of:)``).
        var failing: FailureEpisode?
        var nextAttempt = ContinuousClock.now
        /// Why submissions stopped: the alarm that stands in the log, or one not recorded yet.
        var alarm: String?
        /// An alarm the database has not taken yet: recorded at the next pass.
        var unrecorded: (AuditWitnessAlarm, AuditWitnessAlarm.Reason)?
        /// The version of the witness's alarm stream when last read.
        var streamVersion: Int32 = 0
    }

    private let settings: WitnessSettings
    let store: PostgresEventStore
    private let fetcher: any HTTPFetching
    private let metrics: WitnessMetrics
    let logger: Logger
    private let evidenceDirectory: String?
    var peers: [String: Peer] = [:]
    private var loaded = false
    private var isPassing = false

    private var pool: ConnectionPool { self.store.pool }

    /// A submitter for `settings`' witnesses over the log `store`, calling out through `fetcher`; an alarm's
    /// evidence goes to `evidenceDirectory/witness-alarms/` (the checkpoint directory) when one is given.
    public init(
        settings: WitnessSettings,
        store: PostgresEventStore,
        fetcher: any HTTPFetching = AsyncHTTPFetcher(timeout: .seconds(5), maximumResponseSize: 64 << 10),
        metrics: WitnessMetrics,
        logger: Logger,
        evidenceDirectory: String? = nil
    ) {
        self.settings = settings
        self.store = store
        self.fetcher = fetcher
        self.metrics = metrics
        self.logger = logger
        self.evidenceDirectory = evidenceDirectory
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
            try await self.followAlarms()
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
                if case .alarm(let alarm) = outcome {
                    await self.raise(alarm, witness: name, checkpoint: latest)
                } else {
                    self.apply(outcome, to: name, checkpoint: latest)
                    await self.recordEpisode(of: name)
                }
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
        case alarm(Alarm)
        /// The witness holds `size`: resend from there next time.
        case resync(Int64, String)
    }

    /// A witness's answer that shows it holds a checkpoint the log contradicts, with the request that got it.
    struct Alarm: Sendable {
        var reason: AuditWitnessAlarm.Reason
        var detail: String
        /// The `old` size sent.
        var old: Int64
        var status: Int
        var contentType: String?
        var answer: [UInt8]
        /// The `add-checkpoint` body sent.
        var request: [UInt8] = []
    }

    /// Each witness's cosigned size from the database, so a restart resumes where it stood, and the witnessed size
    /// and the time its quorum was reached from the stored cosignatures, so they do not restart at 0.
    private func load() async throws {
        let latest = try await self.pool.withConnection { try await CheckpointCosignatures.latest(on: $0) }
        var witnessed: (size: Int64, reachedAt: Int64)?
        if let policy = self.settings.policy {
            witnessed = try await self.pool.withConnection {
                try await CheckpointCosignatures.newestWitnessed(under: policy, on: $0)
            }
        }
        for entry in latest where self.peers[entry.witness] != nil {
            self.peers[entry.witness]?.believedSize = entry.treeSize
            self.peers[entry.witness]?.cosignedSize = entry.treeSize
            self.metrics.recordCosigned(entry.witness, size: entry.treeSize, at: entry.cosignedAt)
        }
        if let witnessed { self.metrics.recordWitnessed(size: witnessed.size, at: witnessed.reachedAt) }
        self.loaded = true
    }

    /// Reads each witness's alarm stream: an alarm another process (or an earlier run) recorded stops submissions
    /// to it, an alarm an operator cleared lets them resume from where the witness was last known to stand, and
    /// alarms the database did not take before are recorded now.
    private func followAlarms() async throws {
        let names = Array(self.peers.keys)
        let states = try await self.pool.withConnection { try await WitnessAlarms.states(of: names, on: $0) }
        for (name, state) in states {
            guard var peer = self.peers[name] else { continue }
            peer.streamVersion = state.version
            if let standing = state.alarm {
                peer.unrecorded = nil
                if peer.alarm == nil {
                    peer.alarm = standing.detail
                    self.logger.critical(
                        "WITNESS ALARM stands: submissions to this witness stay stopped until an operator clears it",
                        metadata: [
                            "witness": "\(name)", "tree_size": "\(standing.treeSize)", "why": "\(standing.detail)",
                        ]
                    )
                }
                self.metrics.recordAlarm(name)
            } else if peer.unrecorded == nil, peer.alarm != nil {
                peer.alarm = nil
                peer.believedSize = peer.cosignedSize
                peer.consecutiveFailures = 0
                peer.nextAttempt = ContinuousClock.now
                self.metrics.clearAlarm(name)
                self.logger.notice("witness alarm cleared: submissions resume", metadata: ["witness": "\(name)"])
            }
            self.peers[name] = peer
            if let pending = peer.unrecorded {
                try await self.record(pending.0, reason: pending.1)
            }
        }
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
        var outcome = Self.interpret(response, old: old, checkpoint: checkpoint, witness: witness)
        if case .alarm(var alarm) = outcome {
            alarm.request = body
            outcome = .alarm(alarm)
        }
        return outcome
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
            func alarm(_ reason: AuditWitnessAlarm.Reason, _ detail: String) -> Outcome {
                .alarm(
                    Alarm(
                        reason: reason,
                        detail: detail,
                        old: old,
                        status: response.status,
                        contentType: response.header("Content-Type"),
                        answer: Array(response.body.prefix(512))
                    )
                )
            }
            if size > checkpoint.size {
                return alarm(
                    .rollback,
                    "the witness holds size \(size), larger than the log's \(checkpoint.size): a rollback or fork"
                )
            }
            if size == old {
                return alarm(.fork, "the witness answered 409 naming the size \(size) that was sent: a fork")
            }
            return .resync(size, "the witness holds size \(size)")
        case 422:
            return .alarm(
                Alarm(
                    reason: .inconsistent,
                    detail: "the witness found the checkpoint inconsistent with what it cosigned (422)",
                    old: old,
                    status: 422,
                    contentType: response.header("Content-Type"),
                    answer: Array(response.body.prefix(512))
                )
            )
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
            if let failing = peer.failing, !failing.recorded { peer.failing = nil }
            peer.consecutiveFailures = 0
            peer.cosignedSize = checkpoint.size
            self.metrics.recordCosigned(name, size: checkpoint.size, at: Int64(time))
            self.logger.debug("witness cosigned", metadata: ["witness": "\(name)", "tree_size": "\(checkpoint.size)"])
        case .resync(let size, let why):
            peer.believedSize = size
            self.fail(&peer, why)
        case .failed(let why):
            self.fail(&peer, why)
        case .alarm(let alarm):
            // Raised through raise(_:witness:checkpoint:), which records it.
            peer.alarm = alarm.detail
        }
        self.peers[name] = peer
    }

    /// Stops submissions to `name`, keeps the request and the answer as evidence, and records the alarm once
    /// (kept for the next pass when the database does not take it now).
    private func raise(_ alarm: Alarm, witness name: String, checkpoint: Checkpointer.Signed) async {
        guard var peer = self.peers[name], peer.alarm == nil else { return }
        self.metrics.recordAlarm(name)
        self.metrics.recordFailure(name)
        self.logger.critical(
            "WITNESS ALARM: submissions to this witness stopped until an operator clears it",
            metadata: ["witness": "\(name)", "tree_size": "\(checkpoint.size)", "why": "\(alarm.detail)"]
        )
        let evidence = self.keepEvidence(alarm, witness: name, checkpoint: checkpoint)
        let payload = AuditWitnessAlarm(
            witness: name,
            treeSize: checkpoint.size,
            rootHash: Data(checkpoint.root).base64EncodedString(),
            oldSize: alarm.old,
            status: alarm.status,
            // The witness's bytes as text; U+0000 (which no event's data may hold) is replaced, so that no answer
            // can make its own alarm unrecordable. The exact bytes are in the evidence file.
            answer: String(decoding: alarm.answer, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "\u{FFFD}"),
            detail: alarm.detail,
            evidence: evidence
        )
        peer.alarm = alarm.detail
        peer.unrecorded = (payload, alarm.reason)
        self.peers[name] = peer
        do {
            try await self.record(payload, reason: alarm.reason)
        } catch {
            self.logger.error(
                "the witness alarm could not be recorded yet; trying again each pass",
                metadata: ["witness": "\(name)", "error": "\(error)"]
            )
        }
    }

    /// Appends `payload` as `audit.witness_alarm` unless one stands (another process's, or this one's from an
    /// earlier pass), and forgets it as unrecorded.
    private func record(_ payload: AuditWitnessAlarm, reason: AuditWitnessAlarm.Reason) async throws {
        guard let version = self.peers[payload.witness]?.streamVersion else { return }
        let standing = try await WitnessAlarms.record(payload, reason: reason, expecting: version, into: self.store)
        guard var peer = self.peers[payload.witness] else { return }
        peer.unrecorded = nil
        if let standing { peer.alarm = standing.detail }
        self.peers[payload.witness] = peer
    }

    /// Keeps the request sent and the witness's answer in `<evidence directory>/witness-alarms/`; returns the
    /// request file's path, nil without a directory or when the files cannot be written (the event still holds
    /// the answer and the checkpoint).
    private func keepEvidence(_ alarm: Alarm, witness: String, checkpoint: Checkpointer.Signed) -> String? {
        guard let directory = self.evidenceDirectory else { return nil }
        let answer = Array("HTTP \(alarm.status)\nContent-Type: \(alarm.contentType ?? "")\n\n".utf8) + alarm.answer
        do {
            return try WitnessAlarms.keepEvidence(
                request: alarm.request,
                answer: answer,
                witness: witness,
                treeSize: checkpoint.size,
                in: directory
            )
        } catch {
            self.logger.error(
                "the witness alarm's evidence could not be written",
                metadata: ["witness": "\(witness)", "error": "\(error)"]
            )
            return nil
        }
    }

    private func fail(_ peer: inout Peer, _ why: String) {
        peer.consecutiveFailures += 1
        // The witness's words may carry anything: no NUL (an event refuses it), one line.
        let line = why.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}").replacingOccurrences(of: "\n", with: " ")
        var run = peer.failing ?? FailureEpisode(since: .now())
        _ = run.fail(String(line.prefix(200)), threshold: AuditWitnessFailing.threshold)
        peer.failing = run
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

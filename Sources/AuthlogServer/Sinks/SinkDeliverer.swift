public import AuthlogCore
public import AuthlogPostgres
public import AuthlogProviders
public import AuthlogStore
import Foundation
public import Logging

/// Pushes sealed events to one configured sink, in log order, at least once, beside the write path and never
/// in it; each sink has its own deliverer on its own schedule, so a slow or failing sink holds no other back.
/// A pass takes the sink's lease (so that one process of several delivers to it), reads the next batch of
/// sealed events from the database, POSTs it signed (``SinkPayload``), and moves the cursor only after a 2xx.
/// A failure keeps the cursor where it was and backs off (1 s, doubling, up to the sink's
/// `maximum_retry_seconds`); the next attempt sends the same events again.
///
/// A run of ``AuditSinkFailing/threshold`` failures in a row is one episode, recorded once as
/// `audit.sink_failing` and ended by `audit.sink_recovered` when the sink acknowledges a batch again; the run
/// lives in the sink's cursor row (``SinkRun``), so a process that takes the lease over continues it.
public actor SinkDeliverer {
    /// How long a lease on `sink` lasts without renewal: another process takes over a sink this long after its
    /// deliverer stopped (each batch renews it). Twice the POST's timeout and 5 s, so that a lease never runs
    /// out while its holder still waits for an answer.
    public static func lease(of sink: SinkSettings.Sink) -> Duration {
        sink.timeout * 2 + .seconds(5)
    }
    /// The most batches one pass delivers, so that one pass stays short.
    static let batchesPerPass = 20

    private let sink: SinkSettings.Sink
    private let cursors: SinkCursors
    private let pool: ConnectionPool
    private let store: any EventStore
    private let fetcher: (any HTTPFetching)?
    private let metrics: SinkMetrics
    private let logger: Logger
    private var failures = 0
    /// Not before this (nil: due now).
    private var nextAttempt: ContinuousClock.Instant?
    private var isPassing = false

    /// A deliverer for `sink`, reading events and keeping its cursor through `cursors` in `pool`, recording its
    /// failing episodes in `store`; its POSTs go through `fetcher` when given, else an HTTP client bounded by
    /// the sink's timeout and 64 KiB answers.
    public init(
        sink: SinkSettings.Sink,
        cursors: SinkCursors,
        pool: ConnectionPool,
        store: any EventStore,
        fetcher: (any HTTPFetching)? = nil,
        metrics: SinkMetrics,
        logger: Logger
    ) {
        self.sink = sink
        self.cursors = cursors
        self.pool = pool
        self.store = store
        self.fetcher = fetcher
        self.metrics = metrics
        self.logger = logger
        metrics.declare(sink.name)
    }

    /// One pass, when the sink is due: the batches it is behind by (up to ``batchesPerPass``), while
    /// `keepGoing` says so (checked before each batch: a shutdown waits for one POST at most).
    public func pass(while keepGoing: @Sendable () -> Bool = { true }) async {
        // The actor is re-entered at each await: one pass at a time keeps the batches in order.
        guard !self.isPassing, self.nextAttempt.map({ $0 <= ContinuousClock.now }) ?? true else { return }
        self.isPassing = true
        defer { self.isPassing = false }
        for _ in 0..<Self.batchesPerPass where keepGoing() {
            do {
                guard try await self.deliverBatch() else { return }
            } catch {
                await self.failed(error)
                return
            }
        }
    }

    /// Gives the lease up, so that another process takes over at once (at shutdown).
    public func releaseLease() async {
        try? await self.cursors.release(self.sink.name)
    }

    /// Delivers the next batch; false when there is nothing to deliver, another process holds the lease, or
    /// it took the cursor over meanwhile.
    private func deliverBatch() async throws -> Bool {
        let sink = self.sink
        guard let cursor = try await self.cursors.claim(sink.name, for: Self.lease(of: sink)) else { return false }
        let page = try await self.pool.withConnection {
            try await EventReader().page(after: cursor, limit: sink.batchSize, filter: EventFilter(), on: $0)
        }
        guard let first = page.events.first, let last = page.events.last else {
            self.metrics.recordPosition(sink.name, through: cursor, head: page.head)
            return false
        }
        let body = SinkPayload.body(page.events.map(\.json), format: sink.format)
        let timestamp = Int64(Date().timeIntervalSince1970)
        let request = OutboundRequest(
            method: "POST",
            url: sink.url,
            headers: [
                ("Content-Type", "application/x-ndjson"), ("Authlog-Sink", sink.name),
                ("Authlog-Positions", "\(first.position)-\(last.position)"),
                ("Signature", SinkPayload.signature(of: body, secret: sink.secret, timestamp: timestamp)),
            ],
            body: body
        )
        let response: OutboundResponse
        do {
            // AsyncHTTPFetcher is the process's one client with this sink's bounds.
            let fetcher = self.fetcher ?? AsyncHTTPFetcher(timeout: sink.timeout, maximumResponseSize: 64 << 10)
            response = try await fetcher.fetch(request)
        } catch {
            throw SinkFailure(description: "unreachable or timed out")
        }
        guard (200..<300).contains(response.status) else {
            throw SinkFailure(description: "answered HTTP \(response.status)")
        }
        guard let run = try await self.cursors.advance(sink.name, from: cursor, to: last.position) else { return false }
        self.metrics.recordDelivered(sink.name, events: page.events.count, through: last.position, head: page.head)
        self.failures = 0
        self.nextAttempt = nil
        if run.isRecorded, let since = run.since { await self.recordRecovery(of: run, since: since) }
        return true
    }

    private func failed(_ error: any Error) async {
        self.failures += 1
        let seconds = min(
            Double(1 << min(self.failures - 1, 20)),
            Double(self.sink.maximumRetryDelay.components.seconds)
        )
        self.nextAttempt = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        self.metrics.recordFailure(self.sink.name)
        let reason = (error as? SinkFailure)?.description ?? "\(error)"
        self.logger.warning(
            "could not deliver events to a sink; they are sent again",
            metadata: ["sink": "\(self.sink.name)", "error": "\(reason)", "retry_in_seconds": "\(Int(seconds))"]
        )
        guard let run = try? await self.cursors.recordFailure(self.sink.name, error: reason) else { return }
        if run.failures >= AuditSinkFailing.threshold, !run.isRecorded, let since = run.since {
            await self.recordFailing(run, since: since, lastError: reason)
        }
    }

    /// Records the run's `audit.sink_failing`, then marks the run recorded. Its id is a hash of the sink and the
    /// run's start, so a process that records it again (the mark was lost) stores it once.
    private func recordFailing(_ run: SinkRun, since: Timestamp, lastError: String) async {
        await self.record("failure", retriedBy: "the next failure") {
            let head = try await self.pool.withConnection { try await EventReader().head(on: $0).size }
            return try EventEnvelope(
                AuditSinkFailing(
                    sink: self.sink.name,
                    failingSince: since.description,
                    failures: run.failures,
                    lastError: lastError,
                    deliveredThrough: run.deliveredThrough,
                    lagEvents: max(0, head - run.deliveredThrough)
                ),
                eventID: OnceEventID.make("sink_failing", self.sink.name, "\(since.microsecondsSinceEpoch)"),
                stream: StreamName(category: "audit", id: "sinks"),
                outcome: .failure,
                reason: "delivery_failed"
            )
        } then: {
            try await self.cursors.markRunRecorded(self.sink.name, since: since)
        }
    }

    /// Records the end of a recorded run as `audit.sink_recovered`, then ends the run (the next batch records it
    /// again if this fails: the same id, stored once).
    private func recordRecovery(of run: SinkRun, since: Timestamp) async {
        await self.record("recovery", retriedBy: "the next batch") {
            try EventEnvelope(
                AuditSinkRecovered(
                    sink: self.sink.name,
                    failingSince: since.description,
                    recoveredAt: Timestamp.now().description,
                    failures: run.failures,
                    deliveredThrough: run.deliveredThrough
                ),
                eventID: OnceEventID.make("sink_recovered", self.sink.name, "\(since.microsecondsSinceEpoch)"),
                stream: StreamName(category: "audit", id: "sinks"),
                outcome: .success
            )
        } then: {
            try await self.cursors.endRun(self.sink.name, since: since)
        }
    }

    /// Appends the event `make` builds, then runs `then` (the run's bookkeeping); a failure of any step is logged
    /// and left to `retry` (`what`: the sink's `failure` or `recovery`).
    private func record(
        _ what: String,
        retriedBy retry: String,
        _ make: () async throws -> EventEnvelope,
        then: () async throws -> Void
    ) async {
        do {
            try await self.store.append(AppendCommand(try await make(), expecting: .any))
            try await then()
        } catch {
            self.logger.warning(
                "could not record the sink's \(what); \(retry) tries again",
                metadata: ["sink": "\(self.sink.name)", "error": "\(error)"]
            )
        }
    }
}

/// Why a delivery failed, in one line without secrets.
struct SinkFailure: Error, CustomStringConvertible {
    let description: String
}

public import AuthlogPostgres
public import AuthlogProviders
import AuthlogStore
import Foundation
public import Logging

/// Pushes sealed events to the configured sinks, in log order, at least once, beside the write path and never
/// in it: a pass reads each due sink's cursor (taking its lease, so that one process of several delivers to
/// it), reads the next batch of sealed events from the database, POSTs it signed (``SinkPayload``), and moves
/// the cursor only after a 2xx. A failure keeps the cursor where it was and backs off (1 s, doubling, up to
/// the sink's `maximum_retry_seconds`); the next attempt sends the same events again.
public actor SinkDeliverer {
    /// How long a lease on `sink` lasts without renewal: another process takes over a sink this long after its
    /// deliverer stopped (each batch renews it). Twice the POST's timeout and 5 s, so that a lease never runs
    /// out while its holder still waits for an answer.
    public static func lease(of sink: SinkSettings.Sink) -> Duration {
        sink.timeout * 2 + .seconds(5)
    }
    /// The most batches one sink gets per pass, so that one pass stays short.
    static let batchesPerPass = 20

    private struct Backoff {
        var failures = 0
        /// Not before this (nil: due now).
        var nextAttempt: ContinuousClock.Instant?

        func isDue(at now: ContinuousClock.Instant) -> Bool { self.nextAttempt.map { $0 <= now } ?? true }
    }

    private let sinks: [SinkSettings.Sink]
    private let cursors: SinkCursors
    private let pool: ConnectionPool
    private let fetcher: (any HTTPFetching)?
    private let metrics: SinkMetrics
    private let logger: Logger
    private var backoffs: [String: Backoff] = [:]
    private var isPassing = false

    /// A deliverer for `settings`' sinks, reading events and keeping cursors in `pool`; each sink's POSTs go
    /// through `fetcher` when given, else an HTTP client bounded by the sink's timeout and 64 KiB answers.
    public init(
        settings: SinkSettings,
        pool: ConnectionPool,
        fetcher: (any HTTPFetching)? = nil,
        metrics: SinkMetrics,
        logger: Logger
    ) {
        self.sinks = settings.sinks
        self.cursors = SinkCursors(pool: pool)
        self.pool = pool
        for sink in settings.sinks { metrics.declare(sink.name) }
        self.fetcher = fetcher
        self.metrics = metrics
        self.logger = logger
    }

    /// One pass: every due sink gets the batches it is behind by (up to ``batchesPerPass``), while
    /// `keepGoing` says so (checked before each batch: a shutdown waits for one POST at most).
    public func pass(while keepGoing: @Sendable () -> Bool = { true }) async {
        // The actor is re-entered at each await: one pass at a time keeps each sink's batches in order.
        guard !self.isPassing else { return }
        self.isPassing = true
        defer { self.isPassing = false }
        let now = ContinuousClock.now
        for sink in self.sinks where self.backoffs[sink.name, default: Backoff()].isDue(at: now) {
            await self.deliver(to: sink, while: keepGoing)
        }
    }

    /// Gives every lease up, so that another process takes over at once (at shutdown).
    public func releaseLeases() async {
        for sink in self.sinks {
            try? await self.cursors.release(sink.name)
        }
    }

    private func deliver(to sink: SinkSettings.Sink, while keepGoing: @Sendable () -> Bool) async {
        for _ in 0..<Self.batchesPerPass where keepGoing() {
            do {
                guard try await self.deliverBatch(to: sink) else { return }
            } catch {
                await self.failed(sink, error: error)
                return
            }
        }
    }

    /// Delivers the next batch; false when there is nothing to deliver, another process holds the lease, or
    /// it took the cursor over meanwhile.
    private func deliverBatch(to sink: SinkSettings.Sink) async throws -> Bool {
        guard let cursor = try await self.cursors.claim(sink.name, for: Self.lease(of: sink)) else { return false }
        let (page, body) = try await self.pool.withConnection { connection in
            let page = try await EventReader().page(
                after: cursor,
                limit: sink.batchSize,
                filter: EventFilter(),
                on: connection
            )
            return (page, try await SinkPayload.body(of: page, format: sink.format, on: connection))
        }
        guard let first = page.events.first, let last = page.events.last else {
            self.metrics.recordPosition(sink.name, through: cursor, head: page.head)
            return false
        }
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
        guard try await self.cursors.advance(sink.name, from: cursor, to: last.position) else { return false }
        self.metrics.recordDelivered(sink.name, events: page.events.count, through: last.position, head: page.head)
        self.backoffs[sink.name] = Backoff()
        return true
    }

    private func failed(_ sink: SinkSettings.Sink, error: any Error) async {
        var backoff = self.backoffs[sink.name, default: Backoff()]
        backoff.failures += 1
        let seconds = min(Double(1 << min(backoff.failures - 1, 20)), Double(sink.maximumRetryDelay.components.seconds))
        backoff.nextAttempt = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        self.backoffs[sink.name] = backoff
        self.metrics.recordFailure(sink.name)
        let reason = (error as? SinkFailure)?.description ?? "\(error)"
        _ = try? await self.cursors.recordFailure(sink.name, error: reason)
        self.logger.warning(
            "could not deliver events to a sink; they are sent again",
            metadata: ["sink": "\(sink.name)", "error": "\(reason)", "retry_in_seconds": "\(Int(seconds))"]
        )
    }
}

/// Why a delivery failed, in one line without secrets.
struct SinkFailure: Error, CustomStringConvertible {
    let description: String
}

public import AuthlogCore
public import AuthlogPostgres
import Foundation
import Synchronization

/// Whether this process can write the log, from the outcomes of the writes it makes anyway (``WriteOutages``):
/// the event store reports every command's result (``observe(_:)``), the HTTP layer every request it answered
/// 503 `database_unavailable` (``noteRefused(route:detail:)``). `/readyz` fails while writing fails and
/// recovers with it; ``record(into:)`` (a background pass every second) records each outage once as
/// `audit.write_outage`. Nothing here adds a write while the database works.
public final class WriteAvailability: Sendable {
    private struct State {
        var outages = WriteOutages()
        var recorded = 0
        var refused = 0
    }

    private let state = Mutex(State())
    /// This process, in the ids of its outage events (so an outage written twice is stored once).
    private let process = UUID()

    /// Nothing failing yet.
    public init() {}

    /// The results of one submission to the writer: any success shows that writing works; otherwise a failure
    /// that means PostgreSQL cannot take writes (unreachable, out of disk or other resources) shows it does
    /// not. Other failures (an expected version, an invalid event) say nothing either way.
    public func observe(_ results: [Result<AppendResult, StoreError>]) {
        let now = Timestamp.now()
        var failure: StoreError?
        for result in results {
            switch result {
            case .success:
                self.state.withLock { $0.outages.writeSucceeded(at: now) }
                return
            case .failure(let error) where error.meansStoreUnreachable:
                failure = failure ?? error
            case .failure:
                continue
            }
        }
        guard let failure else { return }
        self.state.withLock { $0.outages.writeFailed(Self.kind(of: failure), at: now) }
    }

    /// A request on `route` was answered 503 `database_unavailable`; `detail` is the kind of failure when the
    /// answer knew it.
    public func noteRefused(route: String, detail: String?) {
        let now = Timestamp.now()
        self.state.withLock {
            $0.refused += 1
            $0.outages.requestRefused(route: route, error: detail, at: now)
        }
    }

    /// The outage in progress (writing fails now), or nil.
    public var failing: (since: Timestamp, requestsRefused: Int, error: String?)? {
        self.state.withLock { state in
            guard state.outages.isFailing, let outage = state.outages.current else { return nil }
            return (outage.startedAt, outage.requestsRefused, outage.error)
        }
    }

    /// Records every ended outage as `audit.write_outage`, and after a quiet spell the one in progress as the
    /// probe of whether writing works again (``WriteOutages``). What cannot be written is kept for the next pass.
    /// - Throws: the first error the store gave, after keeping what it refused.
    public func record(into store: any EventStore) async throws {
        let outages = self.state.withLock { $0.outages.takeRecordable(at: .now()) }
        guard !outages.isEmpty else { return }
        var events: [EventEnvelope] = []
        do {
            events = try outages.map(self.event(recording:))
        } catch {
            self.state.withLock { $0.outages.notRecorded(outages) }
            throw error
        }
        let results = await store.appendEach(events.map { AppendCommand($0, expecting: .any) })
        var recorded: [WriteOutages.Outage] = []
        var failed: [WriteOutages.Outage] = []
        var firstError: (any Error)?
        for (outage, result) in zip(outages, results) {
            switch result {
            case .success: recorded.append(outage)
            case .failure(let error):
                failed.append(outage)
                firstError = firstError ?? error
            }
        }
        self.state.withLock { state in
            state.outages.recorded(recorded)
            state.outages.notRecorded(failed)
            state.recorded += recorded.count
        }
        if let firstError { throw firstError }
    }

    /// `/metrics`: whether writing fails now, the outages recorded, the requests refused for it.
    public func metricLines() -> [String] {
        let (failing, recorded, refused) = self.state.withLock { ($0.outages.isFailing, $0.recorded, $0.refused) }
        return [
            "# HELP authlog_writes_failing 1 while this process cannot write the log (/readyz answers 503).",
            "# TYPE authlog_writes_failing gauge",
            "authlog_writes_failing \(failing ? 1 : 0)",
        ]
            + ServerMetrics.counter(
                "authlog_write_outages_total",
                help: "Outages of this process's writes recorded as audit.write_outage.",
                samples: [([], recorded)]
            )
            + ServerMetrics.counter(
                "authlog_write_refused_requests_total",
                help: "Requests answered 503 database_unavailable: nothing could be recorded.",
                samples: [([], refused)]
            )
    }

    /// The event of one ended outage: its id is a hash of this process and the outage's start, so that writing
    /// it again (after an answer lost with a connection) stores it once.
    private func event(recording outage: WriteOutages.Outage) throws -> EventEnvelope {
        let endedAt = outage.endedAt ?? .now()
        return try EventEnvelope(
            AuditWriteOutage(
                startedAt: outage.startedAt.description,
                endedAt: endedAt.description,
                refusedRoutes: outage.refusedRoutes,
                error: outage.error ?? "unknown"
            ),
            eventID: OnceEventID.make(
                "write_outage",
                self.process.uuidString,
                "\(outage.startedAt.microsecondsSinceEpoch)"
            ),
            stream: StreamName(category: "audit", id: "writes"),
            occurredAt: endedAt,
            outcome: .failure,
            reason: "database_unavailable",
            requestID: "write-outage-\(UUID.version7().lowercased)"
        )
    }

    /// The kind of a failure as the server's log names it (`server_error 53100`, `connection_failed`).
    static func kind(of error: StoreError) -> String {
        error.logDetail.trimmingCharacters(in: .whitespaces)
    }
}

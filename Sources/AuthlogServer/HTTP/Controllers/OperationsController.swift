import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogStore
import Hummingbird
import NIOCore

/// `/healthz`, `/readyz` and `/metrics`.
struct OperationsController: Sendable {
    let queries: SessionQueries
    let reads: ReadDatabase
    let replicaLagLimit: Duration
    let metrics: ServerMetrics
    let integrity: LogIntegrityStatus
    /// Whether this process can write the log.
    let writes: WriteAvailability
    let providers: [any IdentityProvider]
    /// What the rate limits and the edge refused, and the events that recorded it.
    let refusals: RefusalRecorder
    /// The rate limits' sharing between processes.
    let limitSync: RateLimitSync?

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/healthz", use: self.health)
        routes.add(.get, "/readyz", use: self.readiness)
        routes.add(.get, "/metrics", use: self.prometheus)
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        JSONResponse.make(.object([("status", .string("ok"))]))
    }

    @Sendable func readiness(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard await self.queries.isReachable() else {
            throw ServiceError(
                .serviceUnavailable,
                "database_unavailable",
                "PostgreSQL cannot be reached.",
                headers: [.retryAfter: "5"]
            )
        }
        if let failing = self.writes.failing {
            // Reads work but writes do not (a full disk): nothing can be recorded, so nothing can be done.
            var refusal = ServiceError(
                .serviceUnavailable,
                "writes_failing",
                "PostgreSQL refuses writes: nothing can be recorded, so sign-ins and refreshes are refused.",
                headers: [.retryAfter: "5"]
            )
            refusal.extraMembers = [
                (
                    "writes",
                    .object([
                        ("state", .string("failing")), ("since", .string(failing.since.description)),
                        ("requests_refused", .number(String(failing.requestsRefused))),
                        ("error", failing.error.map(JSONValue.string) ?? .null),
                    ])
                )
            ]
            throw refusal
        }
        // Ready whatever the log's integrity: sign-ins are still recorded while the signer refuses.
        var members: [(String, JSONValue)] = [
            ("status", .string("ready")), ("writes", .object([("state", .string("ok"))])),
            ("log", LogIntegrityMetrics.readiness(self.integrity)),
        ]
        if let replica = await self.reads.replicaState() {
            members.append(("replica", self.describe(replica)))
        }
        if let witnesses = self.metrics.witnesses.readiness() { members.append(("witnesses", witnesses)) }
        return JSONResponse.make(.object(members))
    }

    /// The read replica's state: `ok`, `lagging` (behind by more than `read_database_max_lag_seconds`) or
    /// `unavailable` (no answer within 2 s). The server stays ready either way: sign-ins never read from the
    /// replica, and the audited reads fall back to the primary while it is unreachable.
    private func describe(_ replica: Result<ReplicaLag, StoreError>) -> JSONValue {
        let limit = self.replicaLagLimit.components.seconds
        switch replica {
        case .failure(let error):
            return .object([
                // The code only: libpq's message names hosts and users, and this route is public.
                ("state", .string("unavailable")), ("error", .string(error.code.description)),
                ("max_lag_seconds", .number(String(limit))),
            ])
        case .success(let lag):
            return .object([
                ("state", .string(lag.milliseconds > limit * 1000 ? "lagging" : "ok")),
                ("lag_seconds", .number(Self.seconds(lag.milliseconds))),
                ("behind_bytes", .number(String(lag.bytesBehind))),
                ("max_lag_seconds", .number(String(limit))),
            ])
        }
    }

    /// Milliseconds as seconds with three decimals.
    private static func seconds(_ milliseconds: Int64) -> String {
        let whole = milliseconds / 1000
        let rest = milliseconds % 1000
        return "\(whole).\(String(rest + 1000).dropFirst())"
    }

    @Sendable func prometheus(_ request: Request, context: AppRequestContext) async throws -> Response {
        var fetches: [(labels: [(String, String)], value: Int)] = []
        var failures: [(labels: [(String, String)], value: Int)] = []
        for provider in self.providers {
            guard let cache = await provider.keyCache else { continue }
            let statistics = await cache.statistics
            fetches.append(([("provider", provider.name)], statistics.fetches))
            failures.append(([("provider", provider.name)], statistics.failures))
        }
        let keyLines =
            ServerMetrics.counter(
                "authlog_jwks_fetches_total",
                help: "Requests for a provider's key set.",
                samples: fetches
            )
            + ServerMetrics.counter(
                "authlog_jwks_fetch_failures_total",
                help: "Failed requests for a provider's key set.",
                samples: failures
            )
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(
                byteBuffer: ByteBuffer(
                    string: self.metrics.render(
                        extraLines: keyLines + LogIntegrityMetrics.lines(self.integrity) + self.writes.metricLines()
                            + self.refusals.metricLines()
                            + (self.limitSync?.metricLines() ?? [])
                    )
                )
            )
        )
    }
}

import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Synchronization

extension ServiceBench {
    /// Refreshes per second of DPoP-bound families (each refresh with a proof by the worker's key: the proof
    /// checked, its key matched, its `jti` recorded in `authlog.dpop_proofs`) against Bearer families, on the
    /// same server and connections, in the order without, with, with, without (after three unmeasured seconds of
    /// each); goal: at least 0.8x. Each run starts from a database just vacuumed and analysed. The proofs of a run
    /// are signed before its clock starts (a device signs its own; this machine's two cores would otherwise charge
    /// the server for them).
    func measureDPoP(through client: HTTPTestClient, database: BenchDatabase, for duration: Duration) async throws {
        let keys = try (0..<self.connections).map { _ in try DPoPProofMaker() }
        let url = client.baseURL + "/v1/token/refresh"
        var bearerTokens: [String] = []
        var boundTokens: [String] = []
        for worker in 0..<self.connections {
            let bearer = try await client.post(
                "/v1/signin/dev",
                .members(["subject": .string("bench-bearer-\(worker)")])
            )
            let bound = try await client.post(
                "/v1/signin/dev",
                .members(["subject": .string("bench-dpop-\(worker)")]),
                headers: [("DPoP", try keys[worker].proof(url: client.baseURL + "/v1/signin/dev"))]
            )
            guard let plain = bearer.json["refresh_token"]?.stringValue,
                let token = bound.json["refresh_token"]?.stringValue, bound.json["token_type"] == .string("DPoP")
            else { throw BenchFailure("a sign-in for the refresh chains failed") }
            bearerTokens.append(plain)
            boundTokens.append(token)
        }
        let chains = [false: TokenChains(bearerTokens), true: TokenChains(boundTokens)]
        let postmaster = try await ProcessCPU.postmaster(of: try await Connection.connect(database.conninfo))
        let maintenance = try await Connection.connect(database.conninfo)
        // Enough proofs for 4,000 refreshes a second, shared evenly; a worker that runs out signs its own.
        let perWorker = Int(self.seconds * 4_000) / self.connections + 1
        var runs: [Bool: [LoadRun]] = [:]
        // Three unmeasured seconds of each first: the first run of a fresh server and database was up to 1.3
        // times slower than the same side's last (PostgreSQL CPU per refresh 1,197 µs against 688 µs), which
        // favoured whichever side did not go first.
        for (index, dpop) in [false, true, false, true, true, false].enumerated() {
            let warmUp = index < 2
            guard let chain = chains[dpop] else { continue }
            let proofs = dpop ? try ProofPool(keys: keys, url: url, perWorker: perWorker) : nil
            try await maintenance.execute("VACUUM ANALYZE")
            let cpu = CPUSplit.start(postmaster: postmaster)
            let run = try await LoadRun.run(connections: self.connections, for: warmUp ? .seconds(3) : duration) {
                worker,
                _ in
                let headers = try proofs.map { [("DPoP", try $0.next(worker))] } ?? []
                let answer = try await client.post(
                    "/v1/token/refresh",
                    .members(["refresh_token": .string(chain.token(worker))]),
                    headers: headers
                )
                guard answer.status == 200, let next = answer.json["refresh_token"]?.stringValue else { return false }
                chain.set(worker, next)
                return true
            }
            guard !warmUp else { continue }
            say(
                "refreshes \(dpop ? "with DPoP (bound families, a proof each)" : "without DPoP (Bearer)"): \(run.summary)"
            )
            say("  \(cpu.perRequest(of: run))")
            runs[dpop, default: []].append(run)
        }
        let rate = { (dpop: Bool) in (runs[dpop] ?? []).map(\.rate).reduce(0, +) / 2 }
        let ratio = rate(true) / rate(false)
        let rows = try await maintenance.query("SELECT count(*) FROM authlog.dpop_proofs").first?.decode(
            Int64.self,
            at: 0
        )
        say("  authlog.dpop_proofs holds \(rows ?? 0) rows (proofs of the last minute, purged every 30 s)")
        say(
            String(
                format: "goal: refreshes with DPoP >= 0.8x without: %.0f/s against %.0f/s, %.2fx %@",
                rate(true),
                rate(false),
                ratio,
                ratio >= 0.8 ? "met" : "NOT met"
            )
        )
    }
}

/// The proofs of one run, signed before its clock starts: each worker's own, taken in turn.
private final class ProofPool: Sendable {
    private let keys: [DPoPProofMaker]
    private let url: String
    private let proofs: Mutex<[[String]]>

    init(keys: [DPoPProofMaker], url: String, perWorker: Int) throws {
        self.keys = keys
        self.url = url
        self.proofs = Mutex(try keys.map { key in try (0..<perWorker).map { _ in try key.proof(url: url) } })
    }

    /// The next proof of `worker`, signed now when its share ran out.
    func next(_ worker: Int) throws -> String {
        if let proof = self.proofs.withLock({ $0[worker].popLast() }) { return proof }
        return try self.keys[worker].proof(url: self.url)
    }
}

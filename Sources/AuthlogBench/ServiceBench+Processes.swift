import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation

extension ServiceBench {
    /// `--processes 1 3`: sign-ins and refreshes per second through `count` `authlog serve` processes sharing
    /// one fresh database, for each count, in this run; the connections go round-robin over the servers, as a
    /// load balancer would send them. Printed: each count's rates and their ratio to the first count's.
    func runProcesses() async throws {
        let cluster = try self.clusterOptions.cluster()
        let duration = Duration.milliseconds(Int64(self.seconds * 1000))
        let apple = try await FakeIdentityProvider.start()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        say(
            "service benchmark, several servers: \(self.connections) connections, \(cores) vCPUs; the servers, "
                + "fake Apple and PostgreSQL on this machine"
        )
        var first: (signins: Double, refreshes: Double)?
        for count in self.processes {
            let database = try await BenchDatabase.make(in: cluster)
            let folder = NSTemporaryDirectory() + "authlog-bench-serve-" + UUID().uuidString.prefix(8)
            let servers = try await ServeChildren.start(
                count: count,
                conninfo: database.conninfo,
                configuration: .members([
                    "providers": .members([
                        "apple": .members([
                            "client_ids": .array([.string("com.example.bench")]),
                            "jwks_url": .string(apple.baseURL + "/jwks"),
                        ])
                    ])
                ]),
                folder: folder
            )
            let measured: (signins: LoadRun, refreshes: LoadRun)
            do {
                measured = try await self.measure(through: servers, apple: apple, for: duration)
            } catch {
                await servers.stop()
                throw error
            }
            let (signins, refreshes) = measured
            await servers.stop()
            try? FileManager.default.removeItem(atPath: folder)
            let baseline = first ?? (signins.rate, refreshes.rate)
            first = baseline
            say("\(count) process\(count == 1 ? "" : "es"): sign-ins \(signins.summary)")
            say("\(count) process\(count == 1 ? "" : "es"): refreshes \(refreshes.summary)")
            say(
                String(
                    format: "%d process%@ / %d: sign-ins %.2fx, refreshes %.2fx",
                    count,
                    count == 1 ? "" : "es",
                    self.processes[0],
                    signins.rate / baseline.signins,
                    refreshes.rate / baseline.refreshes
                )
            )
        }
        await apple.stop()
    }

    /// Sign-ins, then refreshes, for `duration` each through `servers`, the connections round-robin.
    private func measure(
        through servers: ServeChildren,
        apple: FakeIdentityProvider,
        for duration: Duration
    ) async throws -> (signins: LoadRun, refreshes: LoadRun) {
        let clients = servers.children.map { HTTPTestClient(baseURL: $0.baseURL) }
        let tokens = try Self.appleTokens(apple: apple, count: Int(self.seconds * 4000) + 1000)
        let ticket = Ticket()
        let signins = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
            let index = ticket.take()
            guard index < tokens.count else { return false }
            return try await clients[worker % clients.count].post("/v1/signin/apple", tokens[index]).status == 200
        }
        let chains = try await TokenChains.signIn(workers: self.connections, through: clients)
        let refreshes = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
            try await chains.refresh(worker, through: clients[worker % clients.count])
        }
        return (signins, refreshes)
    }
}

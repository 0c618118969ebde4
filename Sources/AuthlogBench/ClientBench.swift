import ArgumentParser
import AuthlogTesting
import Foundation

/// `authlog-bench client`: AuthlogClient's time per authorized request against a bare URLSession request.
struct ClientBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Measure AuthlogClient's time per authorized request against a bare URLSession request.",
        discussion: """
            Starts authlog's HTTP server in this process on a fresh database of the given cluster (development \
            mode), signs in with the dev provider, and sends GET /v1/log/receipt/{event_id} one at a time through \
            AuthlogClient.send and as a bare URLSession request with the same token, in alternating blocks. Goal: \
            at most 1.2 times the bare request's time.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Requests each way.")
    var requests = 4000

    @Option(help: "Requests per alternating block.")
    var block = 250

    func validate() throws {
        guard self.requests > 0, self.block > 0 else { throw ValidationError("--requests and --block: at least 1") }
    }

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let apple = try await FakeIdentityProvider.start()
        let database = try await BenchDatabase.make(in: cluster)
        let server = try await ServiceBench.startServer(database: database, apple: apple)
        guard let baseURL = URL(string: server.baseURL) else { throw ValidationError("no server URL") }
        let result: ClientOverheadBench.Result
        do {
            result = try await ClientOverheadBench.measure(
                baseURL: baseURL,
                requests: self.requests,
                block: self.block,
                warmup: min(200, self.requests)
            )
        } catch {
            await server.stop()
            await apple.stop()
            throw error
        }
        await server.stop()
        await apple.stop()
        say("client overhead: \(result.requests) authorized requests each way, one at a time, one URLSession")
        say(String(format: "bare URLSession: %.1f µs per request", result.bareMicroseconds))
        say(String(format: "AuthlogClient.send: %.1f µs per request", result.clientMicroseconds))
        say(
            String(
                format: "ratio: %.3fx (goal <= 1.2x) %@",
                result.ratio,
                result.ratio <= 1.2 ? "met" : "NOT met"
            )
        )
    }
}

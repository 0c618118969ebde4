public import Hummingbird
import Logging
import ServiceLifecycle

/// Runs a Hummingbird application on 127.0.0.1 with a port the system picks, for tests and benchmarks,
/// and stops it gracefully.
public final class ServiceRunner: Sendable {
    /// The bound port.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts `router` and returns once it listens.
    /// - Throws: when the server cannot start.
    public static func start<Context: RequestContext>(router: Router<Context>) async throws -> ServiceRunner
    where Context.Source == ApplicationRequestContextSource {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw HTTPError(.internalServerError, message: "the test server did not start")
        }
        return ServiceRunner(port: port, group: group, task: task)
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Stops the server after the requests in flight are answered.
    public func stop() async {
        await self.group.triggerGracefulShutdown()
        _ = try? await self.task.value
    }
}

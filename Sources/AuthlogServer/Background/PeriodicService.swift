import Logging
public import ServiceLifecycle

/// Background work as a swift-service-lifecycle `Service`: runs `body` at once and then every `interval`,
/// until the service group shuts down gracefully (SIGTERM, SIGINT) or is cancelled; then runs `onShutdown`
/// once. A pass in progress is never interrupted: shutdown waits for it, and only the wait between passes is
/// cut short.
public struct PeriodicService: Service {
    /// The name in the server's log.
    public let name: String
    /// The time between the end of one pass and the start of the next.
    public let interval: Duration
    let body: @Sendable () async -> Void
    let onShutdown: (@Sendable () async -> Void)?

    /// Creates the service.
    public init(
        name: String,
        every interval: Duration,
        body: @escaping @Sendable () async -> Void,
        onShutdown: (@Sendable () async -> Void)? = nil
    ) {
        self.name = name
        self.interval = interval
        self.body = body
        self.onShutdown = onShutdown
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await self.body()
            let interval = self.interval
            // Graceful shutdown cancels the sleep, not the pass.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        await self.onShutdown?()
    }
}

extension PeriodicService: CustomStringConvertible {
    public var description: String { self.name }
}

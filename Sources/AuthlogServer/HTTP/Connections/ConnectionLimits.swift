/// How long the server waits for a client and how many it holds at once, resolved from
/// ``ServerConfiguration/ConnectionSettings`` with their defaults (docs/configuration.md).
///
/// Without these a client that sends its headers a byte a minute, or declares a body it never sends,
/// holds a connection, its buffers and a file descriptor forever.
public struct ConnectionLimits: Sendable, Equatable {
    /// From a connection's start to its first request's complete headers (default 10 s).
    public var headerTimeout: Duration
    /// From a request's headers to the end of its body (default 30 s: a 64 KiB body at ~2 KiB/s).
    public var bodyTimeout: Duration
    /// How long a kept-alive connection may wait for its next request (default 60 s).
    public var idleTimeout: Duration
    /// After the answer to a request whose body was not read, how long the rest is read and dropped before
    /// the connection is closed, so that the client reads the answer instead of a reset (2 s).
    public var lingerTimeout: Duration
    /// How long an answer may wait for a client that stopped reading it before the connection is closed
    /// (30 s; ``StalledReaderGuard``).
    public var writeStallTimeout: Duration = .seconds(30)
    /// The most connections open at once (default 2,048: well under the usual 65,536 descriptors, and
    /// ~1 MiB of buffers each at most).
    public var maximumConnections: Int
    /// The most connections open at once from one address that is not a trusted proxy (default 1/16 of
    /// ``maximumConnections``): one host can never take every slot.
    public var maximumPerAddress: Int
    /// The idle timeout while three quarters of the slots or more are taken (5 s, or ``idleTimeout`` when
    /// shorter): idle connections make room first when the server is near its limit.
    public var busyIdleTimeout: Duration

    /// The defaults (``ConfigurationDefaults``).
    public init(
        headerTimeout: Duration = .seconds(ConfigurationDefaults.headerTimeoutSeconds),
        bodyTimeout: Duration = .seconds(ConfigurationDefaults.bodyTimeoutSeconds),
        idleTimeout: Duration = .seconds(ConfigurationDefaults.idleTimeoutSeconds),
        lingerTimeout: Duration = .seconds(2),
        maximumConnections: Int = ConfigurationDefaults.maximumConnections,
        maximumPerAddress: Int? = nil
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.lingerTimeout = lingerTimeout
        self.maximumConnections = maximumConnections
        self.maximumPerAddress = maximumPerAddress ?? max(1, maximumConnections / 16)
        self.busyIdleTimeout = min(idleTimeout, .seconds(ConfigurationDefaults.busyIdleTimeoutSeconds))
    }

    /// The limits a configuration asks for; each missing one is its default.
    /// - Throws: ``ServerConfiguration/Invalid`` for a timeout outside 1…3,600 s, a cap outside 1…1,000,000 or a
    ///   per-address cap outside 1…the cap.
    public init(_ settings: ServerConfiguration.ConnectionSettings?) throws {
        self.init()
        func seconds(_ value: Int?, _ name: String, default fallback: Duration) throws -> Duration {
            guard let value else { return fallback }
            guard (1...3_600).contains(value) else {
                throw ServerConfiguration.Invalid(description: "connections.\(name) must be 1 to 3600 seconds")
            }
            return .seconds(value)
        }
        self.headerTimeout = try seconds(
            settings?.headerTimeoutSeconds,
            "header_timeout_seconds",
            default: self.headerTimeout
        )
        self.bodyTimeout = try seconds(settings?.bodyTimeoutSeconds, "body_timeout_seconds", default: self.bodyTimeout)
        self.idleTimeout = try seconds(settings?.idleTimeoutSeconds, "idle_timeout_seconds", default: self.idleTimeout)
        if let maximum = settings?.maximumConnections {
            guard (1...1_000_000).contains(maximum) else {
                throw ServerConfiguration.Invalid(description: "connections.maximum_connections must be 1 to 1000000")
            }
            self.maximumConnections = maximum
        }
        self.maximumPerAddress = max(1, self.maximumConnections / 16)
        if let perAddress = settings?.maximumConnectionsPerAddress {
            guard (1...self.maximumConnections).contains(perAddress) else {
                throw ServerConfiguration.Invalid(
                    description: "connections.maximum_connections_per_address must be 1 to maximum_connections"
                )
            }
            self.maximumPerAddress = perAddress
        }
        self.busyIdleTimeout = min(self.idleTimeout, .seconds(ConfigurationDefaults.busyIdleTimeoutSeconds))
    }
}

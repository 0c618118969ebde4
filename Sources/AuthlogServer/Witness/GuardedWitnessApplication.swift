public import AuthlogWitness
public import Hummingbird
import HummingbirdCore
public import Logging

/// `authlog witness`'s HTTP server: the witness's routes (``buildWitnessRouter(witness:logger:)``) behind the
/// main server's connection guard (header, body and idle timeouts, a cap on open connections).
public func buildWitnessApplication(
    witness: Witness,
    host: String,
    port: Int,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let limits = try ConnectionLimits(nil)
    return Application(
        router: buildWitnessRouter(witness: witness, logger: logger),
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(limits: limits, logger: logger, metrics: ServerMetrics())]
            )
        ),
        configuration: .init(
            address: .hostname(host, port: port),
            serverName: "authlog-witness",
            availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)
        ),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger
    )
}

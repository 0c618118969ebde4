import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore

/// The witness's HTTP server: `POST /add-checkpoint` (C2SP tlog-witness), `GET /<origin hash>/checkpoint`
/// (the latest cosigned note, the monitoring endpoint) and `GET /healthz`, with the main server's connection
/// guard (header, body and idle timeouts, a cap on open connections).
public func buildWitnessApplication(
    witness: Witness,
    host: String,
    port: Int,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let router = Router(context: BasicRequestContext.self)
    router.post("/add-checkpoint") { request, _ -> Response in
        let answer: WitnessAnswer
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > Witness.bodyLimit {
            answer = .tooLarge(Witness.bodyLimit)
        } else {
            do {
                let body = try await request.body.collect(upTo: Witness.bodyLimit)
                answer = await witness.addCheckpoint(body: Array(buffer: body))
            } catch {
                answer = .tooLarge(Witness.bodyLimit)
            }
        }
        if answer.status >= 400 {
            logger.info(
                "add-checkpoint refused",
                metadata: ["status": "\(answer.status)", "why": "\(answer.body.trimmingCharacters(in: .newlines))"]
            )
        }
        return witnessResponse(answer)
    }
    router.get("/:origin/checkpoint") { _, context -> Response in
        guard let hash = context.parameters.get("origin"), let note = await witness.latestNote(originHash: hash) else {
            return witnessResponse(
                WitnessAnswer(status: 404, contentType: "text/plain; charset=utf-8", body: "no cosigned checkpoint\n")
            )
        }
        return witnessResponse(WitnessAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: note))
    }
    router.get("/healthz") { _, _ in
        witnessResponse(WitnessAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: "ok\n"))
    }
    let limits = try ConnectionLimits(nil)
    return Application(
        router: router,
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

private func witnessResponse(_ answer: WitnessAnswer) -> Response {
    Response(
        status: HTTPResponse.Status(code: answer.status),
        headers: [.contentType: answer.contentType],
        body: .init(byteBuffer: ByteBuffer(string: answer.body))
    )
}

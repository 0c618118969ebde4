import Foundation
public import Hummingbird
public import Logging
import NIOCore

/// The witness's routes: `POST /add-checkpoint` (C2SP tlog-witness), `GET /<origin hash>/checkpoint` (the latest
/// cosigned note, the monitoring endpoint) and `GET /healthz`. The server that accepts connections for them,
/// with the main server's connection guard, is AuthlogServer's `buildWitnessApplication`.
public func buildWitnessRouter(witness: Witness, logger: Logger) -> Router<BasicRequestContext> {
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
    return router
}

private func witnessResponse(_ answer: WitnessAnswer) -> Response {
    Response(
        status: HTTPResponse.Status(code: answer.status),
        headers: [.contentType: answer.contentType],
        body: .init(byteBuffer: ByteBuffer(string: answer.body))
    )
}

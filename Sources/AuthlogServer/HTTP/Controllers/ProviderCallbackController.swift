import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Hummingbird

/// Calls from providers: `POST /v1/providers/apple/notifications` and `POST|GET /v1/providers/kakao/unlink`.
struct ProviderCallbackController: Sendable {
    let service: ProviderNotificationService
    let body: RequestBodyReader
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.post, "/v1/providers/apple/notifications", use: self.appleNotification)
        routes.add(.post, "/v1/providers/kakao/unlink", use: self.kakaoUnlink)
        routes.add(.get, "/v1/providers/kakao/unlink", use: self.kakaoUnlink)
    }

    @Sendable func appleNotification(_ request: Request, context: AppRequestContext) async throws -> Response {
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let payload: String?
        do {
            payload = try await self.body.jsonObject(of: request).optionalString("payload")
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.service.refuseUnreadable("apple", reason: refusal.reason, answer: refusal.answer, metadata)
        }
        try await self.service.receiveApple(payload: payload, metadata: metadata)
        return JSONResponse.make(.emptyObject)
    }

    @Sendable func kakaoUnlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        var fields: [String: String] = [:]
        for item in request.uri.queryParameters {
            fields[String(item.key)] = String(item.value)
        }
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        if request.method == .post {
            let bytes: [UInt8]
            do {
                bytes = try await self.body.bytes(of: request)
            } catch let refusal as RequestBodyReader.Refusal {
                throw await self.service.refuseUnreadable(
                    "kakao",
                    reason: refusal.reason,
                    answer: refusal.answer,
                    metadata
                )
            }
            if !bytes.isEmpty {
                guard let decoded = FormEncoding.decode(String(decoding: bytes, as: UTF8.self)) else {
                    throw await self.service.refuseUnreadable(
                        "kakao",
                        reason: .malformedRequest,
                        answer: .badRequest("The form body is malformed."),
                        metadata
                    )
                }
                for field in decoded { fields[field.name] = field.value }
            }
        }
        try await self.service.receiveKakaoUnlink(
            authorization: request.headers[.authorization],
            fields: fields,
            metadata: metadata
        )
        return JSONResponse.make(.emptyObject)
    }
}

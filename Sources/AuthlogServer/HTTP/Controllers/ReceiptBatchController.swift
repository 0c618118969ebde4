import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTransparency
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/log/receipts?ids=<uuid>,…[&from=<tree size>]`: the receipts of up to 64 of the caller's own events
/// against one checkpoint, with one multi-leaf proof and, when `from` is below the checkpoint's size, the
/// consistency proof from the tree the device keeps (``ReceiptBatchMaker``; the device checks it with
/// ``ReceiptBatch``). The caller is the events' user, by access token; audit keys fetch receipts one at a time
/// (``ReceiptController``). An id that is not the caller's event is in `not_found`, as one that does not exist,
/// so existence does not leak; one not covered by a signed checkpoint yet is in `pending`.
///
/// `200`, or `202` with `Retry-After` when anything is pending: an event not checkpointed yet (the checkpoint
/// interval) or, with witnesses configured, a checkpoint their quorum has not cosigned (the witness interval).
/// The route is a log read for the per-address limit (`log_read`, as every `/v1/log/` path). The answer is gzip
/// when the request takes it (``GzipAnswer``).
struct ReceiptBatchController: Sendable {
    let tokens: TokenService
    let pool: ConnectionPool
    let checkpointSeconds: Int
    /// Which witnesses' cosignatures make a checkpoint witnessed (nil: none are configured).
    let witnessPolicy: WitnessPolicy?
    /// The least time between two submissions to one witness (`log.witness_interval_seconds`).
    let witnessSeconds: Int

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/log/receipts", use: self.receipts)
    }

    @Sendable func receipts(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let bearer = TokenController.bearer(request), bearer.split(separator: ".").count == 3 else {
            throw ServiceError.missingAccessToken(
                "Send the events' user's access token as Authorization: Bearer (audit keys fetch receipts one by one)."
            )
        }
        let userID = try await self.tokens.authenticate(bearer: bearer).0.userID
        let query = try ReceiptBatchQuery(
            parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        )
        let made = try await self.make(query, for: userID)
        var retryAfter: [Int] = []
        if !made.pending.isEmpty { retryAfter.append(self.checkpointSeconds) }
        if made.witnessed == .pending { retryAfter.append(self.witnessSeconds) }
        var response = GzipAnswer.json(
            made.json(eventForm: query.eventForm),
            status: retryAfter.isEmpty ? .ok : .accepted,
            for: request
        )
        if let seconds = retryAfter.max() { response.headers[.retryAfter] = String(min(max(seconds, 1), 3600)) }
        return response
    }

    private func make(_ query: ReceiptBatchQuery, for userID: UUID) async throws -> ReceiptBatchMaker.Made {
        do {
            return try await self.pool.withConnection { connection in
                try await ReceiptBatchMaker.make(
                    eventIDs: query.eventIDs,
                    userID: userID,
                    from: query.from,
                    witnessPolicy: self.witnessPolicy,
                    on: connection
                )
            }
        } catch let error as ReceiptMaker.AlteredEvent {
            throw ServiceError(.conflict, "event_altered", "\(error)")
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError(
                .conflict,
                "not_checkpointed",
                "No checkpoint has been signed yet (\(error.message)); ask again shortly.",
                headers: [.retryAfter: String(min(max(self.checkpointSeconds, 1), 3600))]
            )
        } catch let error as StoreError where error.code == .dropped {
            throw ServiceError(.gone, "dropped", error.message)
        } catch {
            throw ServiceError.failure(error)
        }
    }
}

extension ReceiptBatchMaker.Made {
    /// The answer's body (docs/openapi.yaml, `ReceiptBatch`): hashes in standard base64, event bytes in
    /// `eventForm`.
    func json(eventForm: ReceiptBatchQuery.EventForm) -> JSONValue {
        var members: [(name: String, value: JSONValue)] = [
            ("checkpoint", .string(self.checkpoint.note)),
            ("witnessed", .string(self.witnessed.rawValue)),
            (
                "receipts",
                .array(
                    self.receipts.map {
                        .object([
                            ("event_id", .string($0.eventID.lowercased)),
                            ("index", .number(String($0.position - 1))),
                            Self.event($0.bytes, form: eventForm),
                        ])
                    }
                )
            ),
            ("proof", .string(Data(self.proof.joined()).base64EncodedString())),
        ]
        if let consistency = self.consistency {
            members.append(("consistency", .string(Data(consistency.joined()).base64EncodedString())))
        }
        members.append(
            (
                "pending",
                .array(
                    self.pending.map {
                        .object([("event_id", .string($0.lowercased)), ("reason", .string("not_checkpointed"))])
                    }
                )
            )
        )
        members.append(("not_found", .array(self.notFound.map { .string($0.lowercased) })))
        return .object(members)
    }

    /// The receipt member holding `bytes`: `event` in base64, or `event_text`, one character per byte.
    private static func event(
        _ bytes: [UInt8],
        form: ReceiptBatchQuery.EventForm
    ) -> (name: String, value: JSONValue) {
        switch form {
        case .base64:
            return ("event", .string(Data(bytes).base64EncodedString()))
        case .text:
            return ("event_text", .string(EventText.text(of: bytes)))
        }
    }
}

import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTransparency
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/log/receipt/{event_id}`: the receipt of one event (``LogReceipt``, a `c2sp.org/tlog-proof@v1`
/// file), for the event's own user (their access token) or an `audit` API key. Anyone else gets 404, as for
/// an event that does not exist, so existence does not leak. An audit key's read is recorded as
/// `audit.accessed`; a user fetching their own receipt is not.
///
/// With witnesses configured, a receipt whose checkpoint the quorum has not cosigned yet is answered `202` with
/// `Retry-After` (the witness interval) and `Authlog-Receipt-Witnessed: pending`: its body verifies with the
/// log's key, not yet under a witness policy. A witnessed one is `200` with `Authlog-Receipt-Witnessed: yes`;
/// without witnesses, `200` with `Authlog-Receipt-Witnessed: none`.
struct ReceiptController: Sendable {
    let tokens: TokenService
    let access: OperatorAccess
    let pool: ConnectionPool
    let checkpointSeconds: Int
    /// Which witnesses' cosignatures make a checkpoint witnessed (nil: none are configured).
    let witnessPolicy: WitnessPolicy?
    /// The least time between two submissions to one witness (`log.witness_interval_seconds`).
    let witnessSeconds: Int
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/log/receipt/{event_id}", use: self.receipt)
    }

    /// Who asks: the user of a valid access token, or an audit key.
    private enum Caller {
        case user(UUID)
        case auditor(actor: String)
    }

    @Sendable func receipt(_ request: Request, context: AppRequestContext) async throws -> Response {
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let text = context.parameters.get("event_id") ?? ""
        let what = "receipt event_id=\(UUID(uuidString: text)?.lowercased ?? "invalid")"
        let caller = try await self.caller(TokenController.bearer(request), what: what, metadata: metadata)
        do {
            let made = try await self.receipt(text, for: caller)
            if case .auditor(let actor) = caller {
                try await self.access.record(actor: actor, what: what, metadata: metadata)
            }
            var headers: HTTPFields = [
                .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(text.lowercased()).tlog-proof\"",
            ]
            var status = HTTPResponse.Status.ok
            if (self.witnessPolicy?.minimumCosigners ?? 0) == 0 {
                headers[.receiptWitnessed] = "none"
            } else if made.isWitnessed {
                headers[.receiptWitnessed] = "yes"
            } else {
                status = .accepted
                headers[.receiptWitnessed] = "pending"
                headers[.retryAfter] = String(min(max(self.witnessSeconds, 1), 3600))
            }
            return Response(
                status: status,
                headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: made.receipt.text))
            )
        } catch let error as ServiceError where (400..<500).contains(error.status.code) {
            // An audit key's refused read is recorded too (its key may be probing); a user's own is not.
            if case .auditor(let actor) = caller {
                try await self.access.record(
                    actor: actor,
                    what: what,
                    refusal: error.status == .gone ? .dropped : .invalidRequest,
                    metadata: metadata
                )
            }
            throw error
        }
    }

    /// The receipt of the event `text` names, for `caller`; 404 for anyone but its user or an auditor.
    private func receipt(_ text: String, for caller: Caller) async throws -> ReceiptMaker.Made {
        let notFound = ServiceError(.notFound, "not_found", "No receipt of that event for this caller.")
        guard text.utf8.count == 36, let eventID = UUID(uuidString: text) else { throw notFound }
        do {
            return try await self.pool.withConnection { connection in
                let owner = try await ReceiptMaker.owner(of: eventID, on: connection)
                if case .user(let userID) = caller, owner != userID { throw notFound }
                return try await ReceiptMaker.make(of: eventID, witnessPolicy: self.witnessPolicy, on: connection)
            }
        } catch let error as ServiceError {
            throw error
        } catch let error as ReceiptMaker.AlteredEvent {
            throw ServiceError(.conflict, "event_altered", "\(error)")
        } catch let error as StoreError where error.code == .outOfRange {
            throw notFound
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError(
                .conflict,
                "not_checkpointed",
                "The event is not covered by a signed checkpoint yet (\(error.message)); ask again shortly.",
                headers: [.retryAfter: String(min(self.checkpointSeconds, 3600))]
            )
        } catch let error as StoreError where error.code == .dropped {
            throw ServiceError(.gone, "dropped", error.message)
        } catch {
            throw ServiceError.failure(error)
        }
    }

    /// The caller: an access token (three dot-separated parts) names its user; anything else must be an
    /// unrevoked `audit` key, authorized as on every audit route: a refused key is counted for its address's
    /// aggregated `audit.accessed`, so an anonymous client sending made-up keys does not grow the log one event
    /// per request.
    private func caller(_ bearer: String?, what: String, metadata: RequestMetadata) async throws -> Caller {
        guard let bearer, !bearer.isEmpty else {
            throw ServiceError.missingAccessToken(
                "Send the event's user's access token, or an audit API key, as Authorization: Bearer.",
                challenge: "Bearer"
            )
        }
        if bearer.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            return .user(try await self.tokens.authenticate(bearer: bearer).0.userID)
        }
        return .auditor(
            actor: try await self.access.authorize(bearer: bearer, scope: .audit, what: what, metadata: metadata)
        )
    }
}

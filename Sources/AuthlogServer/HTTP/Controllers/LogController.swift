import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Hummingbird
import NIOCore

/// `/v1/log/checkpoint`, the proofs and the tlog-tiles resources (`/checkpoint`, `/tile/…`, `/minimum-index`; see
/// LogController+Tiles.swift): what an outside witness or auditor needs to check the log without trusting it.
/// Every answer is hashes and sizes; no event contents, so the routes are public. Anonymous reads do not append
/// one event each (an anonymous reader must not be able to grow the log): the checkpoint, proofs and tiles are
/// counted in `/metrics` (`authlog_log_reads_total`) and, per client address and window, in one aggregated
/// `audit.accessed` (``RefusalRecorder``); the route group `log_read` is limited per client address (429
/// `rate_limited`, ``RateLimiter``).
struct LogController: Sendable {
    let access: OperatorAccess
    let requestMetadata: RequestMetadataReader
    let metrics: ServerMetrics
    let recorder: RefusalRecorder

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/log/checkpoint", use: self.checkpoint)
        routes.add(.get, "/checkpoint", use: self.checkpoint)
        routes.add(.get, "/v1/log/proof/inclusion", use: self.inclusion)
        routes.add(.get, "/v1/log/proof/consistency", use: self.consistency)
        routes.add(.get, "/tile/**", documentedAs: "/tile/{tile_path}", use: self.tile)
        routes.add(.get, "/minimum-index", use: self.minimumIndex)
    }

    /// The latest signed checkpoint note, as `text/plain`; counted like the proofs and tiles.
    @Sendable func checkpoint(_ request: Request, context: AppRequestContext) async throws -> Response {
        self.admit("checkpoint", request, context)
        let latest = try await self.answering {
            // Public and unrecorded: no lag to note.
            try await self.access.read(measuringLag: false) { try await CosignedCheckpoint.latest(on: $0) }.value
        }
        guard let latest else {
            throw ServiceError(.notFound, "no_checkpoint", "No checkpoint has been signed yet.")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: latest.note))
        )
    }

    /// `?position=N[&tree_size=M]`: the inclusion proof of position N in the tree of M (default: the whole
    /// sealed log).
    @Sendable func inclusion(_ request: Request, context: AppRequestContext) async throws -> Response {
        self.admit("proof_inclusion", request, context)
        let query = request.uri.queryParameters
        let position = try Self.number(query["position"].map(String.init), "position")
        let requestedSize = try query["tree_size"].map { try Self.number(String($0), "tree_size") }
        let proof = try await self.answering {
            try await self.access.read(measuringLag: false) {
                try await LogProofs.inclusion(position: position, treeSize: requestedSize, on: $0)
            }
        }
        return GzipAnswer.json(proof.value.json, for: request)
    }

    /// `?from=M&to=N`: the consistency proof from the tree of M to the tree of N.
    @Sendable func consistency(_ request: Request, context: AppRequestContext) async throws -> Response {
        self.admit("proof_consistency", request, context)
        let query = request.uri.queryParameters
        let from = try Self.number(query["from"].map(String.init), "from")
        let to = try Self.number(query["to"].map(String.init), "to")
        let proof = try await self.answering {
            try await self.access.read(measuringLag: false) {
                try await LogProofs.consistency(from: from, to: to, on: $0)
            }
        }
        return GzipAnswer.json(proof.value.json, for: request)
    }

    /// Counts a public read of `route` (its rate limit was taken before the handler ran) in `/metrics` and in
    /// its address's aggregated `audit.accessed`.
    func admit(_ route: String, _ request: Request, _ context: AppRequestContext) {
        let address = self.requestMetadata.metadata(of: request, context: context).ip
        self.metrics.recordLogRead(route: route)
        self.recorder.noteAccess(
            address: address?.limitKey ?? "unknown",
            actor: "anonymous",
            kind: "anonymous_read",
            query: route
        )
    }

    /// A positive decimal parameter: at most 18 digits, so it always fits an `Int64`.
    private static func number(_ text: String?, _ name: String) throws -> Int64 {
        guard let text else { throw ServiceError.badRequest("The query parameter \(name) is missing.") }
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int64(text), value >= 1
        else {
            throw ServiceError.badRequest("The query parameter \(name) must be a whole number from 1.")
        }
        return value
    }

    /// Runs a read: a position or size beyond the log is 400 `out_of_range`, one in months that retention
    /// dropped 410 `dropped`; other failures as everywhere.
    func answering<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError where error.code == .outOfRange {
            throw ServiceError(.badRequest, "out_of_range", error.message)
        } catch let error as StoreError where error.code == .dropped {
            throw ServiceError(.gone, "dropped", error.message)
        } catch {
            throw ServiceError.failure(error)
        }
    }
}

import AuthlogCore
import AuthlogStore
import Foundation
import Hummingbird
import NIOCore

/// `/v1/log/checkpoint` and the proofs: what an outside witness or auditor needs to check the log without
/// trusting it. Every answer is hashes and sizes; no event contents. The routes are public; each proof
/// served is recorded as `audit.accessed` (actor `key:NAME` when the caller sent a valid API key, else
/// `anonymous`) before it is answered.
struct LogController: Sendable {
    let access: OperatorAccess
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/log/checkpoint", use: self.checkpoint)
        routes.add(.get, "/v1/log/proof/inclusion", use: self.inclusion)
        routes.add(.get, "/v1/log/proof/consistency", use: self.consistency)
    }

    /// The latest signed checkpoint note, as `text/plain`.
    @Sendable func checkpoint(_ request: Request, context: AppRequestContext) async throws -> Response {
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
        let query = request.uri.queryParameters
        let proof = try await self.recordingRefusal("proof inclusion", request, context) {
            let position = try Self.number(query["position"].map(String.init), "position")
            let requestedSize = try query["tree_size"].map { try Self.number(String($0), "tree_size") }
            return try await self.answering {
                try await self.access.read {
                    try await LogProofs.inclusion(position: position, treeSize: requestedSize, on: $0)
                }
            }
        }
        try await self.record(
            "proof inclusion position=\(proof.value.position) tree_size=\(proof.value.treeSize)",
            request,
            context,
            lag: proof.lag
        )
        return JSONResponse.make(proof.value.json)
    }

    /// `?from=M&to=N`: the consistency proof from the tree of M to the tree of N.
    @Sendable func consistency(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let proof = try await self.recordingRefusal("proof consistency", request, context) {
            let from = try Self.number(query["from"].map(String.init), "from")
            let to = try Self.number(query["to"].map(String.init), "to")
            return try await self.answering {
                try await self.access.read { try await LogProofs.consistency(from: from, to: to, on: $0) }
            }
        }
        try await self.record(
            "proof consistency from=\(proof.value.from) to=\(proof.value.to)",
            request,
            context,
            lag: proof.lag
        )
        return JSONResponse.make(proof.value.json)
    }

    /// Records the proof served as `audit.accessed`.
    private func record(
        _ what: String,
        _ request: Request,
        _ context: AppRequestContext,
        refusal: APIKeyRefusal? = nil,
        lag: ReplicaLag? = nil
    ) async throws {
        let actor = try await self.access.optionalActor(bearer: TokenController.bearer(request))
        try await self.access.record(
            actor: actor,
            what: what,
            refusal: refusal,
            lag: lag,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
    }

    /// Runs `body`; every refusal it throws (400: a bad parameter or a position beyond the log; 410: a
    /// position in dropped months) is recorded as a refused `what` before it is answered. A 503 is not: the
    /// database that would record it is down.
    private func recordingRefusal<T: Sendable>(
        _ what: String,
        _ request: Request,
        _ context: AppRequestContext,
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as ServiceError where (400..<500).contains(error.status.code) {
            try await self.record(what, request, context, refusal: error.status == .gone ? .dropped : .invalidRequest)
            throw error
        }
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
    private func answering<T: Sendable>(_ body: () async throws -> T) async throws -> T {
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

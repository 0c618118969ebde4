import AuthlogAccounts
import AuthlogPostgres
import AuthlogStore
import Hummingbird
import NIOCore

/// The tree as C2SP tlog-tiles resources (c2sp.org/tlog-tiles): `GET /tile/<L>/<N>[.p/<W>]` (hashes) and
/// `GET /tile/entries/<N>[.p/<W>]` (entry bundles), `application/octet-stream`, as far as the latest signed
/// checkpoint covers the tree; and `GET /minimum-index`, tlog-tiles' minimum index in decimal. A path not written
/// exactly as the spec writes it is 400 `invalid_tile_path`; a tile the latest signed checkpoint does not cover,
/// or a full one that ends at or below the minimum index (retention dropped it), is 404 `tile_not_found`. Full
/// tiles never change and are cached for a year; a partial tile of a given width never changes either, but the
/// log may stop serving it once the full tile exists, so it is cached briefly.
extension LogController {
    /// The `Cache-Control` of full tiles and entry bundles.
    static let fullTileCaching = "public, max-age=31536000, immutable"
    /// The `Cache-Control` of partial ones.
    static let partialTileCaching = "public, max-age=60"

    @Sendable func tile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let route = request.uri.path.hasPrefix("/tile/entries/") ? "tile_entries" : "tile"
        self.admit(route, request, context)
        guard request.uri.path.utf8.count <= 64, let tile = TilePath(parsing: request.uri.path.dropFirst()) else {
            throw ServiceError(
                .badRequest,
                "invalid_tile_path",
                "Not a tlog-tiles path: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], with N in 3-digit x-prefixed elements."
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try await self.access.read(measuringLag: false) { connection in
                let state = try await TileReader.state(on: connection)
                do {
                    return try await TileReader.read(tile, state: state, on: connection)
                } catch let error as StoreError where error.code == .dropped {
                    throw StoreError(
                        .dropped,
                        "\(error.message); the minimum index is \(state.minimumIndex) (GET /minimum-index)"
                    )
                }
            }.value
        } catch let error as StoreError where error.code == .outOfRange || error.code == .dropped {
            throw ServiceError(.notFound, "tile_not_found", error.message)
        } catch {
            throw ServiceError.failure(error)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/octet-stream",
                .cacheControl: tile.isPartial ? Self.partialTileCaching : Self.fullTileCaching,
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// tlog-tiles' minimum index, `text/plain`: every entry from it on has an inclusion proof, and every pair of
    /// tree sizes from it on a consistency proof, from the tiles served (0 until retention drops a month).
    @Sendable func minimumIndex(_ request: Request, context: AppRequestContext) async throws -> Response {
        self.admit("minimum_index", request, context)
        let state = try await self.answering {
            try await self.access.read(measuringLag: false) { try await TileReader.state(on: $0) }.value
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: "\(state.minimumIndex)\n"))
        )
    }
}

import AuthlogStore
import Hummingbird
import Logging
import NIOCore

/// The body of one streamed export (`GET /v1/events/stream`): every sealed event after the query's cursor up
/// to `through` (the head when the stream began) that matches its filter, one line each (the export format,
/// or OCSF), in position order.
///
/// Page N+1 is read and its lines built on another task while page N is written, so the database's share and
/// the server's overlap. Memory is bounded by two pages (``EventReader/streamPageSize``); a client that stops
/// reading is cut off by ``StalledReaderGuard``. The body ends with HTTP's own end (the last chunk) only when
/// every line was written: any failure closes the connection without it, so a consumer knows a cut stream from
/// a whole one and resumes after the last line it got.
struct ExportStream: Sendable {
    let access: OperatorAccess
    let query: ExportQuery
    let through: Int64
    /// Held until the body is done with (``ExportStreamSlot``).
    let slot: ExportStreamSlot
    let logger: Logger

    /// Writes every page, then the end.
    func write(to writer: inout any ResponseBodyWriter) async throws {
        var pending: Task<(bytes: ByteBuffer, next: Int64), any Error>? = self.prefetch(after: self.query.after)
        defer { pending?.cancel() }
        do {
            while let reading = pending {
                let page = try await reading.value
                pending = page.next < self.through ? self.prefetch(after: page.next) : nil
                if page.bytes.readableBytes > 0 { try await writer.write(page.bytes) }
            }
            try await writer.finish(nil)
        } catch {
            self.logger.warning(
                "export stream cut",
                metadata: ["error_type": .string("\(type(of: error))"), "through": .stringConvertible(self.through)]
            )
            throw error
        }
    }

    private func prefetch(after: Int64) -> Task<(bytes: ByteBuffer, next: Int64), any Error> {
        Task { try await self.page(after: after) }
    }

    /// One page's lines, each ended by a newline, and the cursor after it.
    private func page(after: Int64) async throws -> (bytes: ByteBuffer, next: Int64) {
        let (lines, next) = try await self.access.read(measuringLag: false) { connection in
            let page = try await EventReader().streamPage(
                after: after,
                through: self.through,
                filter: self.query.filter,
                on: connection
            )
            switch self.query.format {
            case .export: return (page.events.map(\.json), page.next)
            case .ocsf: return (try await OCSFExport.lines(of: page, on: connection), page.next)
            }
        }.value
        var bytes = ByteBuffer()
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines {
            bytes.writeString(line)
            bytes.writeStaticString("\n")
        }
        return (bytes, next)
    }
}

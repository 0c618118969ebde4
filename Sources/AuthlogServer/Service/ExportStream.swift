import AuthlogStore
import Hummingbird
import Logging
import NIOCore

/// The body of one streamed export (`GET /v1/events/stream`): every sealed event after the query's cursor up
/// to `through` (the head when the stream began) that matches its filter, one line each (the export format,
/// or OCSF), in position order.
///
/// Three stages overlap: page N+2 is read (the database's work) while page N+1's lines are built on a task of
/// its own and page N is written, 256 KiB at a time. Memory is bounded by those three pages
/// (``EventReader/streamPageSize`` events, about ``EventReader/streamPageBytes`` of `data`); a client that stops
/// reading is cut off by ``StalledReaderGuard``. The body ends with HTTP's own end (the last
/// chunk) only when every line was written: any failure closes the connection without it, so a consumer
/// knows a cut stream from a whole one and resumes after the last line it got.
struct ExportStream: Sendable {
    let access: OperatorAccess
    let query: ExportQuery
    let through: Int64
    /// Held until the body is done with (``ExportStreamSlot``).
    let slot: ExportStreamSlot
    let logger: Logger

    /// A page as read: its rows, whose lines are still to be built, or (OCSF, whose mapping reads the
    /// database) its lines already built.
    private enum ReadPage: Sendable {
        case rows(ExportStreamRows)
        case lines([String], next: Int64)

        var next: Int64 {
            switch self {
            case .rows(let rows): rows.next
            case .lines(_, let next): next
            }
        }
    }

    /// The most bytes handed to the channel at once (256 KiB): the channel turns writable again each time the
    /// client has read about that much, so only a reader slower than 256 KiB in ``ConnectionLimits``'s 30 s
    /// (under 9 KB/s) is taken for a stalled one; smaller slices cost a hop to the event loop each.
    static let sliceBytes = 256 << 10

    /// Writes every page, then the end.
    func write(to writer: inout any ResponseBodyWriter) async throws {
        var reading: Task<ReadPage, any Error>? = self.read(after: self.query.after)
        var building: Task<ByteBuffer, any Error>?
        defer {
            reading?.cancel()
            building?.cancel()
        }
        do {
            while reading != nil || building != nil {
                var built: Task<ByteBuffer, any Error>?
                if let page = try await reading?.value {
                    reading = page.next < self.through ? self.read(after: page.next) : nil
                    built = Task { try Self.bytes(of: page) }
                } else {
                    reading = nil
                }
                if var bytes = try await building?.value {
                    // In slices, each awaited: the channel turns writable again as the client reads, so a slow
                    // reader that keeps reading is never taken for a stalled one (StalledReaderGuard).
                    while let slice = bytes.readSlice(length: min(bytes.readableBytes, Self.sliceBytes)),
                        slice.readableBytes > 0
                    {
                        try await writer.write(slice)
                    }
                }
                building = built
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

    /// Reads the page after `after` on a task of its own.
    private func read(after: Int64) -> Task<ReadPage, any Error> {
        Task {
            try await self.access.read(measuringLag: false) { connection in
                let rows = try await EventReader().streamRows(
                    after: after,
                    through: self.through,
                    filter: self.query.filter,
                    on: connection
                )
                switch self.query.format {
                case .export: return ReadPage.rows(rows)
                case .ocsf:
                    return .lines(try await OCSFExport.lines(of: try rows.page(), on: connection), next: rows.next)
                }
            }.value
        }
    }

    /// A page's lines, each ended by a newline.
    private static func bytes(of page: ReadPage) throws -> ByteBuffer {
        switch page {
        case .rows(let rows): return ByteBuffer(bytes: try rows.newlineDelimited())
        case .lines(let lines, _):
            var bytes = ByteBuffer()
            bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
            for line in lines {
                bytes.writeString(line)
                bytes.writeStaticString("\n")
            }
            return bytes
        }
    }
}

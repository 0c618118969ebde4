import CZlib

/// Whole byte strings compressed as gzip (RFC 1952) with zlib, for the log's read answers (``GzipAnswer``).
enum Gzip {
    /// `bytes` as one gzip member at zlib's default level; nil when zlib fails (it has no memory).
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count <= Int(UInt32.max) else { return nil }
        var stream = z_stream()
        guard authlog_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound is the most a single Z_FINISH can write for this input, header and trailer included.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))))
        guard output.count <= Int(UInt32.max) else { return nil }
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }
}

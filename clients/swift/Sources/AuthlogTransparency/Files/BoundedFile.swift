import Foundation

/// Reads small files whose size is not trusted (a policy, a note) without reading more than a bound: a device
/// such as /dev/zero or a huge file is refused after `limit + 1` bytes instead of filling memory.
public enum BoundedFile {
    /// The contents of the file at `path`; nil when it cannot be opened or read, or holds more than `limit` bytes.
    public static func contents(atPath path: String, limit: Int) -> [UInt8]? {
        guard limit >= 0, limit < Int.max, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let contents: [UInt8]
        do {
            // `read(upToCount:)` returns nil at once for an empty file.
            contents = try handle.read(upToCount: limit + 1).map { Array($0) } ?? []
        } catch {
            return nil
        }
        return contents.count <= limit ? contents : nil
    }
}

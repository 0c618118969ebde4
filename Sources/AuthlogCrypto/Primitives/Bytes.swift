extension Array where Element == UInt8 {
    /// Calls `body` with a non-null pointer to the bytes and their count; an empty array passes a pointer
    /// to a private zero byte with count 0, since some OpenSSL calls refuse NULL even for no data.
    func withNonNullPointer<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        if self.isEmpty {
            var zero: UInt8 = 0
            return try withUnsafePointer(to: &zero) { try body($0, 0) }
        }
        return try self.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array has storage") }
            return try body(base, buffer.count)
        }
    }
}

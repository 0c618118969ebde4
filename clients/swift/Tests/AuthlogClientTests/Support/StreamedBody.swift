import Foundation

/// A body the loopback server writes chunk by chunk after the head, for the client's read bound: `total` bytes of
/// `byte`, with `Content-Length: declaredLength` when it is set (true, or a lie either way) and otherwise none (the
/// body ends when the connection closes), a pause after each chunk so that the reader can cancel. `sent` counts
/// the bytes the socket took before the reader hung up.
struct StreamedBody: Sendable {
    var total: Int
    var declaredLength: Int?
    var byte: UInt8 = 0x20
    var chunkSize = 64 * 1024
    var pauseMicroseconds: UInt32 = 1_000
    let sent = ByteCount()
}

/// A count shared by the server's thread and the test.
///
/// `@unchecked Sendable`: `value` is read and written only while `lock` is held.
final class ByteCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func add(_ count: Int) { self.lock.withLock { self.value += count } }

    var total: Int { self.lock.withLock { self.value } }
}

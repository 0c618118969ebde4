import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The lines of a file descriptor, read a chunk at a time, each with its number (from 1). Memory is bounded by
/// one chunk and one line of at most `limit` bytes: a longer line is not kept, only its length is counted.
struct JSONLineReader: Sendable {
    /// One line: its bytes (without the newline or a trailing carriage return), or only its length when it is
    /// longer than the limit.
    enum Line: Sendable {
        case text(number: Int, bytes: [UInt8])
        case overlong(number: Int, length: Int)
    }

    /// A read or a write that failed, with errno's text.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static let chunkSize = 1 << 20

    private let descriptor: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    private var atEnd = false
    private var number = 0

    /// Reads `descriptor` from where it stands; lines longer than `limit` bytes are reported as overlong.
    init(descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next line, or nil at the end of the input. A last line without a newline is a line.
    /// - Throws: ``Failure`` when reading fails.
    mutating func next() throws(Failure) -> Line? {
        while true {
            if let newline = self.newline(from: self.scanned) {
                let line = self.take(upTo: newline)
                self.start = newline + 1
                self.scanned = self.start
                return line
            }
            self.scanned = self.buffer.count
            // One byte more than the limit: the line may still end in a carriage return that is not counted.
            if self.buffer.count - self.start > self.limit + 1 {
                return try self.skipOverlongLine()
            }
            if self.atEnd {
                guard self.start < self.buffer.count else { return nil }
                let line = self.take(upTo: self.buffer.count)
                self.start = self.buffer.count
                return line
            }
            try self.readChunk()
        }
    }

    /// The index of the first newline at or after `index` in the buffer (memchr: the hot loop of a large input).
    private func newline(from index: Int) -> Int? {
        self.buffer.withUnsafeBytes { raw -> Int? in
            guard index < raw.count, let base = raw.baseAddress,
                let found = memchr(base + index, Int32(UInt8(ascii: "\n")), raw.count - index)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// The line from `start` up to `end`, numbered.
    private mutating func take(upTo end: Int) -> Line {
        self.number += 1
        var bytes = self.buffer[self.start..<end]
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard bytes.count <= self.limit else { return .overlong(number: self.number, length: bytes.count) }
        return .text(number: self.number, bytes: Array(bytes))
    }

    /// Counts the rest of a line already longer than the limit without keeping it.
    private mutating func skipOverlongLine() throws(Failure) -> Line {
        var length = self.buffer.count - self.start
        self.discardConsumed(all: true)
        while true {
            if let newline = self.newline(from: 0) {
                length += newline
                if newline > 0, self.buffer[newline - 1] == UInt8(ascii: "\r") { length -= 1 }
                self.start = newline + 1
                self.scanned = self.start
                self.number += 1
                return .overlong(number: self.number, length: length)
            }
            length += self.buffer.count
            self.discardConsumed(all: true)
            if self.atEnd {
                self.number += 1
                return .overlong(number: self.number, length: length)
            }
            try self.readChunk()
        }
    }

    /// Drops the bytes before `start` (or every byte) so the buffer holds at most one line and one chunk.
    private mutating func discardConsumed(all: Bool = false) {
        if all {
            self.buffer.removeAll(keepingCapacity: true)
        } else {
            self.buffer.removeFirst(self.start)
        }
        self.start = 0
        self.scanned = self.buffer.count
    }

    /// Appends up to one chunk from the descriptor; marks the end of the input.
    private mutating func readChunk() throws(Failure) {
        let scannedFromStart = self.scanned - self.start
        self.discardConsumed()
        self.scanned = scannedFromStart
        let old = self.buffer.count
        let descriptor = self.descriptor
        self.buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
        var count = 0
        repeat {
            count = self.buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress.map { $0 + old }, Self.chunkSize)
            }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            self.buffer.removeLast(Self.chunkSize)
            throw Failure(description: String(cString: strerror(errno)))
        }
        self.buffer.removeLast(Self.chunkSize - count)
        if count == 0 { self.atEnd = true }
    }

    /// Writes `bytes` to `descriptor`, retrying short writes.
    static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) throws(Failure) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: String(cString: strerror(errno)))
            }
            rest = rest.dropFirst(written)
        }
    }
}

import Foundation

/// One HTTP/1.1 request and its answer as they crossed the wire: the request's method and target, and the bytes
/// of each head (request or status line and headers, with the blank line) and body.
struct WireExchange: Sendable {
    let method: String
    let target: String
    let requestHead: Int
    let requestBody: Int
    let status: Int
    let answerHead: Int
    let answerBody: [UInt8]
    /// The events the answer's `Authlog-Event-Ids` names.
    let eventIDs: [String]
    /// Whether the answer's body went compressed (`Content-Encoding` other than `identity`).
    let compressed: Bool

    /// The target's path, without the query.
    var path: Substring { self.target.prefix { $0 != "?" } }
    /// Every byte of the exchange, both ways.
    var bytes: Int { self.requestHead + self.requestBody + self.answerHead + self.answerBody.count }
    /// The heads' bytes, both ways.
    var heads: Int { self.requestHead + self.answerHead }

    /// The exchanges of one connection: its requests (`sent`) paired in order with its answers (`received`).
    /// - Throws: ``BenchFailure`` for bytes that are not whole HTTP/1.1 messages with `Content-Length` or
    ///   chunked bodies, or a count of answers that differs from the requests'.
    static func parse(sent: [UInt8], received: [UInt8]) throws -> [WireExchange] {
        var requests = MessageReader(sent)
        var answers = MessageReader(received)
        var exchanges: [WireExchange] = []
        while let request = try requests.next() {
            guard let answer = try answers.next() else {
                throw BenchFailure("a request without an answer on the wire: \(request.startLine)")
            }
            let words = request.startLine.split(separator: " ")
            let statusWords = answer.startLine.split(separator: " ")
            guard words.count == 3, statusWords.count >= 2, let status = Int(statusWords[1]) else {
                throw BenchFailure("not HTTP/1.1: \(request.startLine) / \(answer.startLine)")
            }
            exchanges.append(
                WireExchange(
                    method: String(words[0]),
                    target: String(words[1]),
                    requestHead: request.head,
                    requestBody: request.bodyWireBytes,
                    status: status,
                    answerHead: answer.head,
                    answerBody: answer.body,
                    eventIDs: answer.header("authlog-event-ids").map {
                        $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    } ?? [],
                    compressed: (answer.header("content-encoding") ?? "identity").lowercased() != "identity"
                )
            )
        }
        guard try answers.next() == nil else { throw BenchFailure("an answer without a request") }
        return exchanges
    }
}

/// Reads HTTP/1.1 messages one after the other from a connection's bytes in one direction.
private struct MessageReader {
    struct Message {
        var startLine: String
        var headers: [(name: String, value: String)]
        var head: Int
        var body: [UInt8]
        var bodyWireBytes: Int

        /// The first header called `name` (lowercase).
        func header(_ name: String) -> String? { self.headers.first { $0.name == name }?.value }
    }

    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next message, or nil at the end of the bytes.
    mutating func next() throws -> Message? {
        guard self.offset < self.bytes.count else { return nil }
        guard let end = self.find([13, 10, 13, 10], from: self.offset) else {
            throw BenchFailure("a message head without its end")
        }
        let headText = String(decoding: self.bytes[self.offset..<end], as: UTF8.self)
        let head = end + 4 - self.offset
        self.offset = end + 4
        let lines = headText.components(separatedBy: "\r\n")
        var length = 0
        var chunked = false
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
            if name == "content-length" { length = Int(value) ?? 0 }
            if name == "transfer-encoding", value.lowercased().contains("chunked") { chunked = true }
        }
        let start = self.offset
        let body = chunked ? try self.chunks() : try self.take(length)
        return Message(
            startLine: lines.first ?? "",
            headers: headers,
            head: head,
            body: body,
            bodyWireBytes: self.offset - start
        )
    }

    private mutating func take(_ count: Int) throws -> [UInt8] {
        guard count >= 0, self.offset + count <= self.bytes.count else { throw BenchFailure("a body cut short") }
        defer { self.offset += count }
        return Array(self.bytes[self.offset..<(self.offset + count)])
    }

    private mutating func chunks() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            guard let end = self.find([13, 10], from: self.offset),
                let size = Int(String(decoding: self.bytes[self.offset..<end], as: UTF8.self), radix: 16)
            else { throw BenchFailure("a bad chunk size") }
            self.offset = end + 2
            body += try self.take(size)
            _ = try self.take(2)
            if size == 0 { return body }
        }
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard self.bytes.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= self.bytes.count {
            if self.bytes[index] == pattern[0], Array(self.bytes[index..<(index + pattern.count)]) == pattern {
                return index
            }
            index += 1
        }
        return nil
    }
}

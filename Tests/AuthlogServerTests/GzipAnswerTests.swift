import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogServer

/// The log's read answers in gzip: which `Accept-Encoding` headers take it (RFC 9110 §12.5.3), and that what
/// ``Gzip`` writes is gzip that another decoder (the system's `gzip -dc`) reads back byte for byte.
struct GzipAnswerTests {
    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("deflate, gzip", true), ("gzip;q=0.5", true), ("x-gzip", true),
        ("*", true), ("br, *;q=0.1", true), (" gzip ; q=1 ", true),
        ("gzip;q=0", false), ("gzip; q=0.000", false), ("*, gzip;q=0", false), ("*;q=0", false), ("br", false),
        ("identity", false), ("", false), ("gzip;q=2", false), ("gzip;q=abc", false), ("gzipped", false),
    ])
    func whichHeadersTakeGzip(header: String, accepted: Bool) {
        #expect(AcceptEncoding.acceptsGzip(header) == accepted, "\(header)")
    }

    @Test func noHeaderOrAnOverlongOneIsIdentity() {
        #expect(!AcceptEncoding.acceptsGzip(nil))
        #expect(!AcceptEncoding.acceptsGzip(String(repeating: "br, ", count: 200) + "gzip"))
    }

    @Test(arguments: [0, 1, 255, 100_000])
    func whatGzipWritesAnotherDecoderReadsBack(count: Int) throws {
        // JSON-like text with repeats, as the receipts' base64 events are, and random bytes, which do not shrink.
        let text = String(repeating: #"{"event":"eyJ0eXBlIjoidG9rZW4ucmVmcmVzaGVkIn0="},"#, count: count / 48 + 1)
        var input = Array(Array(text.utf8).prefix(count / 2))
        input += (0..<(count - input.count)).map { _ in UInt8.random(in: 0...255) }
        let compressed = try #require(Gzip.compress(input))
        #expect(compressed.prefix(2) == [0x1f, 0x8b], "the gzip magic")
        #expect(try SystemGzip.decompress(compressed) == input)
    }
}

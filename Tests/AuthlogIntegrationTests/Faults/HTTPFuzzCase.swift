import AuthlogTesting
import Foundation

/// One hostile request for the HTTP fuzz suite: the exact bytes to send and what the test may expect.
struct HTTPFuzzCase {
    /// A few words naming how the request was made, for failure messages.
    var label: String
    var method: String
    var path: String
    var headers: [(String, String)]
    var body: [UInt8]
    /// The `Content-Length` to declare; `nil` sends the body's real length.
    var declaredLength: String?
    /// Whether the HTTP framing itself is broken (the router never sees the request).
    var isBrokenFraming = false
    /// Bytes that replace the whole request (garbage on the wire).
    var rawOverride: [UInt8]?

    /// Whether the request reaches `POST /v1/signin/…` as a parsed HTTP request: a sign-in attempt.
    var isSigninAttempt: Bool { !self.isBrokenFraming && self.method == "POST" && self.path.hasPrefix("/v1/signin/") }

    /// The bytes on the wire.
    var bytes: [UInt8] {
        if let rawOverride { return rawOverride }
        var head = "\(self.method) \(self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in self.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(self.declaredLength ?? String(self.body.count))\r\n\r\n"
        return Array(head.utf8) + self.body
    }
}

/// Makes hostile requests across every route, deterministically from a seed.
struct HTTPFuzzGenerator {
    static let routes: [(method: String, path: String)] = [
        ("POST", "/v1/nonces"), ("POST", "/v1/signin/dev"), ("POST", "/v1/signin/dev"), ("POST", "/v1/signin/apple"),
        ("POST", "/v1/signin/google"), ("POST", "/v1/signin/no-such-provider"), ("POST", "/v1/token/refresh"),
        ("POST", "/v1/logout"), ("POST", "/oauth/introspect"), ("GET", "/.well-known/jwks.json"), ("GET", "/healthz"),
        ("GET", "/readyz"), ("GET", "/metrics"), ("GET", "/v1/nowhere"), ("DELETE", "/v1/signin/dev"),
        ("PUT", "/v1/token/refresh"), ("OPTIONS", "/v1/logout"), ("GET", "/v1/signin/dev?x=%00%ff"),
        ("POST", "/v1/me/credential-state"), ("POST", "/v1/me/reauthenticate"), ("POST", "/v1/me/identities/dev"),
        ("DELETE", "/v1/me/identities/dev"), ("DELETE", "/v1/me"), ("POST", "/v1/providers/apple/notifications"),
        ("POST", "/v1/providers/kakao/unlink"), ("GET", "/v1/providers/kakao/unlink?user_id=%00"),
        ("POST", "/oauth/revoke"), ("GET", "/v1/reports/signins?by=day,%00&since=%ff"), ("GET", "/v1/reports/x"),
    ]

    var random: SeededRandom

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self.random) }
    mutating func chance(_ percent: Int) -> Bool { self.int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[self.int(0...(values.count - 1))] }
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self.random) }
    }

    /// The next request.
    mutating func next(index: Int) -> HTTPFuzzCase {
        let route = self.pick(Self.routes)
        let (bodyLabel, body) = self.body(index: index)
        var fuzzCase = HTTPFuzzCase(
            label: bodyLabel,
            method: route.method,
            path: route.path,
            headers: self.headers(),
            body: body
        )
        if self.chance(12) { self.breakFraming(&fuzzCase) }
        // A control character in a header value is refused by the HTTP parser: no route sees the request.
        if fuzzCase.headers.contains(where: { $0.1.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }) {
            fuzzCase.isBrokenFraming = true
        }
        return fuzzCase
    }

    private mutating func body(index: Int) -> (String, [UInt8]) {
        switch self.int(0...15) {
        case 0: return ("random bytes", self.bytes(self.int(0...2_000)))
        case 1:
            let valid = Array(#"{"subject":"fuzz-\#(index)","client_id":"com.example","remember_me":true}"#.utf8)
            return ("truncated JSON", Array(valid.prefix(self.int(0...(valid.count - 1)))))
        case 2: return ("10,000-deep arrays", Array(String(repeating: "[", count: 10_000).utf8))
        case 3:
            return (
                "10,000-deep objects",
                Array((String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)).utf8)
            )
        case 4:
            return (
                "wrong types",
                Array(
                    self.pick([
                        #"{"subject":5}"#, #"{"id_token":[]}"#, #"{"refresh_token":{}}"#,
                        #"{"remember_me":"yes","subject":"x"}"#,
                        #"{"scope":7}"#, #"{"user":12,"subject":"x"}"#, #"[]"#, #""text""#, "null", "1e99999",
                    ]).utf8
                )
            )
        case 5:
            return (
                "lone surrogates",
                Array(
                    self.pick([
                        #"{"subject":"\ud800"}"#, #"{"subject":"a\udfffb"}"#, #"{"id_token":"\ud83d"}"#,
                        #"{"refresh_token":"\udc00\ud800"}"#, #"{"client_id":"\ud800","subject":"s"}"#,
                    ]).utf8
                )
            )
        case 6:
            return (
                "NUL bytes",
                Array(
                    self.pick([
                        #"{"subject":"a\u0000b"}"#, "{\"subject\":\"a\u{0}b\"}",
                        #"{"client_id":"\u0000","subject":"z"}"#,
                        "{\"sub\u{0}ject\":\"x\"}", #"{"refresh_token":"alr_\u0000"}"#,
                    ]).utf8
                )
            )
        case 7:
            return ("JWT-shaped garbage", Array(#"{"id_token":"\#(self.jwtGarbage())","raw_nonce":"n"}"#.utf8))
        case 8: return ("oversized", Array(repeating: UInt8(ascii: "a"), count: 70_000 + self.int(0...5_000)))
        case 9: return ("empty", [])
        case 10:
            return ("huge numbers", Array(#"{"subject":"n","remember_me":1e308,"x":-99999999999999999999999}"#.utf8))
        case 11:
            return (
                "duplicate members",
                Array(#"{"subject":"a","subject":"b","refresh_token":"x","refresh_token":"y"}"#.utf8)
            )
        case 12: return ("garbage refresh token", Array(#"{"refresh_token":"\#(self.jwtGarbage())"}"#.utf8))
        case 13: return ("form body", Array("token=\(self.jwtGarbage())&token_type_hint=%ZZ&=&&".utf8))
        default:
            return ("valid dev sign-in", Array(#"{"subject":"fuzz-\#(index)","client_id":"com.example.fuzz"}"#.utf8))
        }
    }

    private mutating func jwtGarbage() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/")
        let segment = { (generator: inout HTTPFuzzGenerator) in
            String((0..<generator.int(0...60)).map { _ in generator.pick(alphabet) })
        }
        return "eyJ" + segment(&self) + "." + segment(&self) + "." + segment(&self)
    }

    private mutating func headers() -> [(String, String)] {
        var headers: [(String, String)] = []
        switch self.int(0...4) {
        case 0: headers.append(("Content-Type", "application/json"))
        case 1: headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        case 2:
            headers.append(("Content-Type", self.pick(["text/plain", "", "application/json; charset=utf-16", "*/*"])))
        default: break
        }
        if self.chance(40) {
            headers.append(
                (
                    "Authorization",
                    self.pick([
                        "Bearer", "Bearer ", "Bearer " + self.jwtGarbage(), "Basic !!!",
                        "Basic " + Data("a:".utf8).base64EncodedString(),
                        "Basic cmVzb3VyY2Utc2VydmVyOg==", "Digest x", String(repeating: "B", count: 6_000),
                        "bearer \u{7F}",
                    ])
                )
            )
        }
        if self.chance(30) {
            headers.append(("User-Agent", self.pick(["", " ", String(repeating: "ua", count: 3_000), "🙂\u{7F}"])))
        }
        if self.chance(15) {
            headers.append(("X-Forwarded-For", self.pick(["", "not-an-ip", "::1, 999.1.1.1", "1.2.3.4, , ,"])))
        }
        if self.chance(10) { headers.append(("X-Empty", "")) }
        if self.chance(5) { headers.append(("X-Long", String(repeating: "x", count: 7_000))) }
        return headers
    }

    private mutating func breakFraming(_ fuzzCase: inout HTTPFuzzCase) {
        fuzzCase.isBrokenFraming = true
        switch self.int(0...8) {
        case 0:
            fuzzCase.label += ", NUL in a header"
            fuzzCase.headers.append(("X-Bad", "a\u{0}b"))
        case 1:
            fuzzCase.label += ", header without a colon"
            fuzzCase.rawOverride = Array(
                "POST \(fuzzCase.path) HTTP/1.1\r\nHost: x\r\nNoColonHere\r\nContent-Length: 0\r\n\r\n".utf8
            )
        case 2:
            fuzzCase.label += ", broken method"
            fuzzCase.method = self.pick(["GE T", "\u{1}POST", "POST\u{0}"])
        case 3:
            fuzzCase.label += ", garbage on the wire"
            fuzzCase.rawOverride = self.bytes(self.int(1...600)) + Array("\r\n\r\n".utf8)
        case 4:
            fuzzCase.label += ", non-numeric Content-Length"
            fuzzCase.declaredLength = self.pick(["abc", "-5", "99999999999999999999999", "1 2", "0x10"])
        case 5:
            fuzzCase.label += ", conflicting Content-Lengths"
            fuzzCase.headers.append(("Content-Length", String(fuzzCase.body.count + 7)))
        case 6:
            fuzzCase.label += ", garbage chunked body"
            fuzzCase.headers.append(("Transfer-Encoding", "chunked"))
            fuzzCase.rawOverride = Array(
                "POST \(fuzzCase.path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"
                    .utf8
            )
        case 7:
            fuzzCase.label += ", odd HTTP version"
            fuzzCase.rawOverride = Array(
                "GET /healthz HTTP/\(self.pick(["3.0", "0.9", "1.x", "11"]))\r\nHost: x\r\n\r\n".utf8
            )
        default:
            fuzzCase.label += ", bad path"
            fuzzCase.path = self.pick([
                "*", "/v1/signin/\u{7F}", "//..//", "/%", "http://evil.example/v1/nonces", "/v1/signin/a b",
            ])
        }
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// The in-process fuzz suite: a seeded generator over the JSON parser, the JWS verifier, the claim checks
/// and the JSON-lines ingest parser. Each input must be accepted or refused with a typed error whose code is
/// known — never a crash, never a mutated token that verifies.
///
/// `AUTHLOG_FUZZ_INPUTS` sets the total (default 50,000, split over the four targets as 40/30/10/20 %),
/// `AUTHLOG_FUZZ_SEED` replays a run; each test prints its seed. docs/fuzzing.md has the longer runs.
@Suite struct FuzzTests {
    static var total: Int { ProcessInfo.processInfo.environment["AUTHLOG_FUZZ_INPUTS"].flatMap { Int($0) } ?? 50_000 }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["AUTHLOG_FUZZ_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
    }

    static let knownCryptoCodes: Set<String> = [
        "unsupported_alg", "invalid_signature", "malformed", "duplicate_member", "unknown_kid", "missing_kid",
        "weak_key", "invalid_key", "key_mismatch", "forbidden_header", "too_large",
    ]

    // MARK: JSON parser

    @Test func jsonParserTakesHostileBytes() throws {
        let seed = Self.seed
        var mutator = Mutator(random: SeededRandom(seed: seed))
        let count = Self.total * 4 / 10
        let samples: [[UInt8]] = [
            Array(#"{"a":1,"b":[true,false,null,"x\u00e9\ud83d\ude00"],"c":{"d":-1.5e-7}}"#.utf8),
            Array(#"[1,2,3,{"k":"v"},[],{}]"#.utf8), Array(#""just a string""#.utf8),
            Array("12345678901234567890".utf8),
            Array(String(repeating: "[", count: 10_000).utf8), Array(#"{"a":"\ud800","b":"\udc00\ud800"}"#.utf8),
            Array(#"{"a":1,"a":2}"#.utf8), Array("{\"nul\":\"a\u{0}b\"}".utf8), Array(#"1e999999999"#.utf8),
        ]
        var accepted = 0
        for index in 0..<count {
            let input = mutator.mutate(samples[index % samples.count])
            do {
                let value = try JSONParser(maximumDepth: 64).parse(input)
                // Whatever parses survives its own canonical form.
                let again = try JSONParser(maximumDepth: 64).parse(value.canonicalBytes)
                #expect(again == value, "seed \(seed), input \(index)")
                accepted += 1
            } catch {
                // Typed throws: every refusal is a JSONParser.Failure.
            }
        }
        print("fuzz JSON: \(count) inputs, \(accepted) accepted, seed \(seed)")
    }

    // MARK: JWS verifier

    @Test(arguments: [SignatureAlgorithm.rs256, .es256, .edDSA])
    func mutatedTokensNeverVerify(algorithm: SignatureAlgorithm) throws {
        let seed = Self.seed
        var mutator = Mutator(random: SeededRandom(seed: seed))
        let key = try PrivateKey.generate(for: algorithm)
        let keys = JWKSet(keys: [JWK(key: try key.publicKey(), kid: "k1")])
        let verifier = JWSVerifier(algorithm: algorithm, keys: keys)
        let payload = JSONValue.object([
            ("iss", .string("https://issuer.example")), ("sub", .string("s")), ("exp", .number("1800000000")),
        ])
        let token = try JWSSigner(key: key, kid: "k1").sign(payload)
        #expect(try verifier.verify(token).payload == payload)
        let count = Self.total * 3 / 10 / 3
        var refusals: [String: Int] = [:]
        for index in 0..<count {
            let mutated = String(decoding: mutator.mutateToken(Array(token.utf8)), as: UTF8.self)
            do {
                _ = try verifier.verify(mutated)
                #expect(mutated == token, "a mutated token verified: seed \(seed), input \(index): \(mutated)")
            } catch {
                #expect(Self.knownCryptoCodes.contains(error.code.rawValue), "\(error.code.rawValue), seed \(seed)")
                refusals[error.code.rawValue, default: 0] += 1
            }
        }
        print(
            "fuzz JWS \(algorithm.rawValue): \(count) inputs, refusals \(refusals.sorted { $0.key < $1.key }), seed \(seed)"
        )
    }

    // MARK: Claim checks

    @Test func claimChecksTakeEveryIntegerBoundary() async throws {
        let seed = Self.seed
        var random = SeededRandom(seed: seed)
        let provider = try await FakeIdentityProvider.start()
        let now: Int64 = 1_800_000_000
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://issuer.example"], audiences: ["client"], maximumAge: 86_400),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        let boundaries: [Int64] = [
            .min, .min + 1, .min + 60, -10_000_000_000_000, -1, 0, 1, now - 86_461, now - 61, now - 60, now, now + 60,
            now + 61, 253_402_300_799, 253_402_300_800, 10_000_000_000_000, .max - 60, .max - 1, .max,
        ]
        let count = Self.total / 10
        var outcomes: [String: Int] = [:]
        for index in 0..<count {
            var claims = FakeIdentityProvider.claims(
                issuer: "https://issuer.example",
                audience: .string("client"),
                subject: "s",
                issuedAt: now
            )
            var outOfRange = false
            for name in ["exp", "nbf", "iat", "auth_time"] where Bool.random(using: &random) {
                let value =
                    Bool.random(using: &random)
                    ? boundaries[Int.random(in: 0..<boundaries.count, using: &random)]
                    : Int64.random(in: .min ... .max, using: &random)
                outOfRange = outOfRange || !(0...253_402_300_799).contains(value)
                claims.removeAll { $0.name == name }
                claims.append((name, .number(String(value))))
            }
            let token = try provider.sign(claims)
            do {
                _ = try await verifier.verify(token, now: Date(timeIntervalSince1970: TimeInterval(now)))
                #expect(!outOfRange, "an out-of-range claim was accepted: seed \(seed), input \(index)")
                outcomes["accepted", default: 0] += 1
            } catch {
                // verify throws ProviderError only (typed throws).
                // The claims are checked in order (exp, nbf, iat, auth_time): an out-of-range one is invalid_claim
                // unless an earlier claim already failed its own time rule.
                if outOfRange {
                    #expect(
                        [.invalidClaim, .expired, .notYetValid, .issuedInFuture, .tooOld].contains(error.reason),
                        "seed \(seed), input \(index): \(error.reason)"
                    )
                }
                outcomes[error.reason.rawValue, default: 0] += 1
            }
        }
        await provider.stop()
        print("fuzz claims: \(count) signed tokens, outcomes \(outcomes.sorted { $0.key < $1.key }), seed \(seed)")
    }

    // MARK: JSON-lines ingest

    @Test func ingestTakesHostileEventLines() throws {
        let seed = Self.seed
        var mutator = Mutator(random: SeededRandom(seed: seed))
        var traffic = TrafficGenerator(seed: seed)
        let lines = traffic.events(count: 200).map { Array(Self.ingestLine($0).utf8) }
        let count = Self.total * 2 / 10
        var accepted = 0
        var fields: [String: Int] = [:]
        for index in 0..<count {
            let input = mutator.mutate(lines[index % lines.count])
            guard let json = try? JSONParser().parse(input) else { continue }
            do {
                let event = try EventEnvelope(ingesting: json)
                try event.validate()
                _ = CanonicalEventEncoding.bytes(envelope: event, recordedAt: event.occurredAt)
                accepted += 1
            } catch {
                #expect(!error.field.isEmpty && !error.problem.isEmpty, "seed \(seed), input \(index)")
                fields[error.field, default: 0] += 1
            }
        }
        print(
            "fuzz ingest: \(count) lines, \(accepted) accepted, refused by field \(fields.sorted { $0.value > $1.value }.prefix(8)), seed \(seed)"
        )
    }

    /// An event as an ingest line, with the envelope's column names.
    static func ingestLine(_ event: EventEnvelope) -> String {
        var members: [(name: String, value: JSONValue)] = [
            ("event_id", .string(event.eventID.lowercased)), ("stream", .string(event.stream.rawValue)),
            ("type", .string(event.type.rawValue)), ("occurred_at", .string(event.occurredAt.description)),
            ("outcome", .string(event.outcome.rawValue)), ("data", event.data),
        ]
        if let version = event.streamVersion { members.append(("stream_version", .number(String(version)))) }
        for (name, value) in [
            ("reason", event.reason), ("provider", event.provider), ("user_id", event.userID?.lowercased),
            ("session_id", event.sessionID?.lowercased), ("client_id", event.clientID), ("user_agent", event.userAgent),
            ("request_id", event.requestID), ("ip", event.ip?.description),
        ] {
            if let value { members.append((name, .string(value))) }
        }
        return JSONValue.object(members).canonicalText
    }
}

/// Byte-level mutations: flips, insertions, deletions, truncations, splices of interesting tokens.
struct Mutator {
    var random: SeededRandom

    static let interesting: [[UInt8]] = [
        "\"", "\\", "\\u0000", "\\ud800", "\\udfff", "{", "}", "[", "]", ",", ":", "-", "0", "1e309", "-0",
        "9223372036854775808", "-9223372036854775809", "null", "true", "\u{0}", "\u{7F}", "\u{FF}", "é", "😀", ".", "=",
        "eyJ", "alg", "none", "kid", "crit", "\"alg\":\"none\"", "\"kid\":\"x\"", "\"crit\":[\"exp\"]", "\"jku\":\"x\"",
    ].map { Array($0.utf8) }

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self.random) }

    /// `input` with one to four random mutations.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<self.int(1..<5) {
            let position = self.int(0..<(bytes.count + 1))
            switch self.int(0..<7) {
            case 0 where !bytes.isEmpty: bytes[min(position, bytes.count - 1)] ^= UInt8(1 << self.int(0..<8))
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &self.random), at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: min(position, bytes.count - 1))
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(contentsOf: Self.interesting[self.int(0..<Self.interesting.count)], at: position)
            case 5 where position < bytes.count:
                let end = min(bytes.count, position + self.int(1..<64))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default: bytes = (0..<self.int(0..<64)).map { _ in UInt8.random(in: 0...255, using: &self.random) }
            }
        }
        return bytes
    }

    /// A token mutated as an attacker would: inside one segment (base64url alphabet), segments swapped or
    /// dropped, a header re-encoded with hostile members, or raw byte mutations.
    mutating func mutateToken(_ token: [UInt8]) -> [UInt8] {
        var segments = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        switch self.int(0..<6) {
        case 0:
            let segment = self.int(0..<segments.count)
            guard !segments[segment].isEmpty else { break }
            let position = self.int(0..<segments[segment].count)
            segments[segment][position] = alphabet[self.int(0..<alphabet.count)]
        case 1: segments.swapAt(self.int(0..<segments.count), self.int(0..<segments.count))
        case 2: segments.remove(at: self.int(0..<segments.count))
        case 3:
            let headers = [
                #"{"alg":"none","kid":"k1"}"#, #"{"alg":"HS256","kid":"k1"}"#, #"{"alg":"RS256"}"#,
                #"{"alg":"ES256","kid":"k1","crit":["exp"]}"#, #"{"alg":"EdDSA","kid":"k1","jwk":{}}"#,
                #"{"alg":"RS256","kid":"k1","alg":"none"}"#, #"{"alg":"ES256","kid":12}"#, #"{"kid":"k1"}"#,
                String(repeating: "[", count: 5_000), #"{"alg":"RS256","kid":"\u0000"}"#,
            ]
            segments[0] = Array(Base64URL.encode(Array(headers[self.int(0..<headers.count)].utf8)).utf8)
        case 4:
            segments[1] = Array(Base64URL.encode(self.mutate(Base64URL.decode(bytes: segments[1]) ?? [])).utf8)
        default:
            return self.mutate(token)
        }
        return Array(segments.joined(separator: [UInt8(ascii: ".")]))
    }
}

import ArgumentParser
import AuthlogCore
@_spi(Benchmarks) import AuthlogCrypto
import Foundation
import Synchronization

/// `authlog-bench crypto`: JOSE verification and signing against the raw EVP operations they wrap.
struct CryptoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crypto",
        abstract: "Measure JWS verification and signing against raw OpenSSL EVP calls in the same run."
    )

    @Option(help: "Seconds each measurement runs.")
    var seconds: Double = 2

    func run() async throws {
        let claims = JSONValue.object([
            ("iss", .string("https://appleid.apple.com")), ("aud", .string("com.example.app")),
            ("sub", .string("001234.abcdef0123456789abcdef0123456789.1234")), ("iat", .number("1795266374")),
            ("exp", .number("1795266974")), ("nonce", .string(String(repeating: "a", count: 64))),
            ("email", .string("user@privaterelay.appleid.com")), ("email_verified", .bool(true)),
        ])
        say("operation                  JOSE ops/s   raw EVP ops/s   JOSE / raw")
        var rs256Ratio = 0.0
        for algorithm in [SignatureAlgorithm.rs256, .es256, .edDSA] {
            let key = try PrivateKey.generate(for: algorithm)
            let publicKey = try key.publicKey()
            let token = try JWSSigner(key: key, kid: "k1").sign(claims, type: "JWT")
            let verifier = JWSVerifier(algorithm: algorithm, keys: JWKSet(keys: [JWK(key: publicKey, kid: "k1")]))
            let signingInput =
                Array(token.utf8.prefix { $0 != UInt8(ascii: ".") }) + [UInt8(ascii: ".")]
                + Array(token.split(separator: ".")[1].utf8)
            let signature = Base64URL.decode(token.split(separator: ".")[2]) ?? []
            let jose = try self.rate { _ = try verifier.verify(token) }
            let raw = try self.rate { try publicKey.verify(signature, for: signingInput, algorithm: algorithm) }
            self.report("\(algorithm.rawValue) verify", jose, raw)
            if algorithm == .rs256 { rs256Ratio = jose / raw }
            if algorithm != .rs256 {
                let signer = JWSSigner(key: key, kid: "k1")
                let joseSign = try self.rate { _ = try signer.sign(claims, type: "JWT") }
                let rawSign = try self.rate { _ = try key.sign(signingInput) }
                self.report("\(algorithm.rawValue) sign", joseSign, rawSign)
            }
        }
        try self.compareSetUps()
        say("")
        say(
            String(
                format: "goal: RS256 JOSE verification at 70%% of raw OpenSSL or more: %.0f%% %@",
                100 * rs256Ratio,
                rs256Ratio >= 0.7 ? "met" : "NOT met"
            )
        )
    }

    /// Verifications a second on every core, with the key's verification set up once and copied (what
    /// `PublicKey` does) against set up for each signature (`EVP_DigestVerifyInit` each time, whose fetches from
    /// OpenSSL 3's method store take process-wide locks), in the same run.
    private func compareSetUps() throws {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        say("")
        say("verification on \(threads) threads   set up once (copied)   set up each time   once / each")
        for algorithm in [SignatureAlgorithm.es256, .rs256] {
            let key = try PrivateKey.generate(for: algorithm)
            let publicKey = try key.publicKey()
            let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0".utf8)
            let signature = try key.sign(message)
            let copied = try self.rate(threads: threads) {
                try publicKey.verify(signature, for: message, algorithm: algorithm, settingUpEachTime: false)
            }
            let fresh = try self.rate(threads: threads) {
                try publicKey.verify(signature, for: message, algorithm: algorithm, settingUpEachTime: true)
            }
            say(
                StoreBench.pad("\(algorithm.rawValue) verify", -26) + StoreBench.pad(String(format: "%.0f", copied), 20)
                    + StoreBench.pad(String(format: "%.0f", fresh), 19)
                    + StoreBench.pad(String(format: "%.2fx", copied / fresh), 14)
            )
        }
    }

    /// Operations per second of `body` run on `threads` threads at once for ``seconds``.
    private func rate(threads: Int, _ body: @escaping @Sendable () throws -> Void) throws -> Double {
        let seconds = self.seconds
        let counts = Mutex<(operations: Int, failure: String?)>((0, nil))
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let deadline = start + .milliseconds(Int64(seconds * 1000))
            var done = 0
            do {
                while ContinuousClock.now < deadline {
                    for _ in 0..<20 { try body() }
                    done += 20
                }
            } catch {
                counts.withLock { $0.failure = "\(error)" }
            }
            counts.withLock { $0.operations += done }
        }
        let elapsed = ContinuousClock.now - start
        let (operations, failure) = counts.withLock { ($0.operations, $0.failure) }
        if let failure { throw BenchFailure("a verification failed: \(failure)") }
        return Double(operations) / elapsed.inSeconds
    }

    private func report(_ name: String, _ jose: Double, _ raw: Double) {
        say(
            StoreBench.pad(name, -26) + StoreBench.pad(String(format: "%.0f", jose), 11)
                + StoreBench.pad(String(format: "%.0f", raw), 16)
                + StoreBench.pad(String(format: "%.0f%%", 100 * jose / raw), 13)
        )
    }

    /// Operations per second of `body`, run for ``seconds`` after a short warm-up.
    private func rate(_ body: () throws -> Void) throws -> Double {
        for _ in 0..<50 { try body() }
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int64(self.seconds * 1000))
        var count = 0
        while clock.now < deadline {
            for _ in 0..<20 { try body() }
            count += 20
        }
        let elapsed = clock.now - start
        return Double(count) / elapsed.inSeconds
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

/// Tokens signed by an independent implementation (joserfc on Python's `cryptography`) verify here, and
/// tokens signed here verify there. `.ci/run` installs joserfc when it is missing.
@Suite(.enabled(if: CrossCheck.isAvailable))
struct CrossCheckTests {
    @Test(arguments: [SignatureAlgorithm.rs256, .es256, .edDSA])
    func tokensSignedByJoserfcVerifyHere(algorithm: SignatureAlgorithm) async throws {
        let output = try await CrossCheck.run(["sign", algorithm.rawValue])
        let document = try JSONParser().parse(output.stdout)
        let jwk = try JWK(json: try #require(document["jwk"]))
        let token = try #require(document["token"]?.stringValue)
        let verified = try JWSVerifier(algorithm: algorithm, keys: JWKSet(keys: [jwk])).verify(token)
        #expect(verified.payload["sub"] == .string("signed-by-python"))
        #expect(verified.keyID == "python")
    }

    @Test(arguments: [SignatureAlgorithm.rs256, .es256, .edDSA])
    func tokensSignedHereVerifyInJoserfc(algorithm: SignatureAlgorithm) async throws {
        let key = try PrivateKey.generate(for: algorithm)
        let token = try JWSSigner(key: key, kid: "authlog").sign(
            .object([("sub", .string("signed-by-authlog")), ("iat", .number("1795266374"))]),
            type: "JWT"
        )
        let request = JSONValue.object([
            ("jwk", try JWK(key: key.publicKey(), kid: "authlog").json()), ("token", .string(token)),
        ])
        let output = try await CrossCheck.run(["verify", algorithm.rawValue], input: request.canonicalText)
        #expect(output.status == 0, "joserfc refused: \(output.stderr)")
        #expect(try JSONParser().parse(output.stdout)["sub"] == .string("signed-by-authlog"))

        let parts = token.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"sub":"someone-else"}"#.utf8)) + "." + parts[2]
        let tampered = JSONValue.object([
            ("jwk", try JWK(key: key.publicKey(), kid: "authlog").json()), ("token", .string(forged)),
        ])
        #expect(try await CrossCheck.run(["verify", algorithm.rawValue], input: tampered.canonicalText).status == 1)
    }

    /// A DPoP proof made by joserfc (RFC 9449's header, its own `jwk` export) verifies here, and the key's
    /// thumbprint is the one joserfc computes (RFC 7638).
    @Test(arguments: [SignatureAlgorithm.es256, .edDSA])
    func dpopProofsMadeByJoserfcVerifyHere(algorithm: SignatureAlgorithm) async throws {
        let url = "https://auth.example.com/v1/token/refresh"
        let now = Timestamp.now()
        let output = try await CrossCheck.run([
            "dpop", algorithm.rawValue, url, "\(now.microsecondsSinceEpoch / 1_000_000)",
        ])
        let document = try JSONParser().parse(output.stdout)
        let proof = try DPoPProofVerifier().verify(
            try #require(document["proof"]?.stringValue),
            for: DPoPRequest(method: "POST", target: try #require(DPoPTarget(url))),
            at: now
        )
        #expect(proof.thumbprint == document["thumbprint"]?.stringValue)
        #expect(proof.algorithm == algorithm)
    }
}

enum CrossCheck {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Python/crosscheck.py"
    ).path

    /// Whether python3 with joserfc is here; under `CI=true` the suite runs regardless and fails without it.
    static var isAvailable: Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import joserfc"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        // A quick probe, run once when the suite is enabled, before any test holds a thread.
        let available =
            (try? probe.run()) != nil
            && {
                probe.waitUntilExit()
                return probe.terminationStatus == 0
            }()
        if !available { print("skipping the joserfc cross-check: python3 with joserfc is not installed") }
        return available
    }

    /// What a finished run printed and returned.
    typealias Output = ChildProcess.Output

    static func run(
        _ arguments: [String],
        input: String = "",
        script: String? = CrossCheck.script
    ) async throws
        -> Output
    {
        try await ChildProcess.run(
            "/usr/bin/env",
            ["python3"] + (script.map { [$0] } ?? []) + arguments,
            input: Data(input.utf8)
        )
    }
}

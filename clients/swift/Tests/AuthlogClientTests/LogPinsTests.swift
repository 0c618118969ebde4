import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// Pins in code and from a file the app ships (a C2SP tlog-policy, or the old two-line form with the log key in
/// code), and the typed error of each bad pin.
struct LogPinsTests {
    static let keys: TestLogKeys? = try? TestLogKeys()

    /// A file holding `text` in a new folder; removed by the caller.
    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString).policy")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func pinsInCodeTakeThePolicyTextOrTheWitnessesAndAQuorum() throws {
        let keys = try #require(Self.keys)
        let vkey = keys.log.verifier.verifierKey
        let fromText = try LogPins(origin: TestLogKeys.origin, verifierKey: vkey, policy: keys.policyText)
        #expect(fromText.origin == TestLogKeys.origin)
        #expect(fromText.logKey.verifierKey == vkey)
        #expect(fromText.policy?.witnesses.map(\.name) == ["a", "b"])
        let fromList = try LogPins(
            origin: TestLogKeys.origin,
            verifierKey: vkey,
            witnesses: keys.witnesses.map(\.verifier.verifierKey),
            quorum: 2
        )
        #expect(fromList.policy?.minimumCosigners == 2)
        #expect(try LogPins(origin: TestLogKeys.origin, verifierKey: vkey).policy == nil)
    }

    @Test func badPinsInCodeAreTyped() throws {
        let keys = try #require(Self.keys)
        let vkey = keys.log.verifier.verifierKey
        #expect(throws: LogPins.Failure.originMismatch(origin: "other.test/log", keyName: TestLogKeys.origin)) {
            try LogPins(origin: "other.test/log", verifierKey: vkey)
        }
        #expect(throws: LogPins.Failure.invalidKey("a verifier key is <name>+<hash>+<base64 key> with an Ed25519 key"))
        {
            try LogPins(origin: TestLogKeys.origin, verifierKey: "authlog.test/log+00000000+AAAA")
        }
        #expect(throws: LogPins.Failure.invalidPolicy("line 2: expected `witness <vkey>` or `quorum <k>`")) {
            try LogPins(
                origin: TestLogKeys.origin,
                verifierKey: vkey,
                policy: "witness \(keys.witnesses[0].verifier.verifierKey)\nfoo\n"
            )
        }
        #expect(
            throws: LogPins.Failure.invalidPolicy("the witness quorum must be between 1 and the number of witnesses")
        ) {
            try LogPins(
                origin: TestLogKeys.origin,
                verifierKey: vkey,
                witnesses: keys.witnesses.map(\.verifier.verifierKey),
                quorum: 3
            )
        }
        let other = keys.impostor.verifier.verifierKey
        #expect(throws: LogPins.Failure.logNotInPolicy(other)) {
            try LogPins(origin: TestLogKeys.origin, verifierKey: other, policy: keys.policyText)
        }
    }

    @Test func aPolicyFileWithOneLogLineIsThePins() throws {
        let keys = try #require(Self.keys)
        let url = try Self.file(Array(keys.policyText.utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        let pins = try LogPins(contentsOf: url)
        #expect(pins.origin == TestLogKeys.origin)
        #expect(pins.logKey.verifierKey == keys.log.verifier.verifierKey)
        #expect(pins.policy?.witnesses.count == 2)
    }

    @Test func theOldTwoLineFormTakesTheLogKeyInCode() throws {
        let keys = try #require(Self.keys)
        let text = "witness \(keys.witnesses[0].verifier.verifierKey)\nquorum 1\n"
        let url = try Self.file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        let pins = try LogPins(contentsOf: url, verifierKey: keys.log.verifier.verifierKey)
        #expect(pins.policy?.witnesses.map(\.name) == ["witness-a.test"])
        #expect(throws: LogPins.Failure.noLogKey) { try LogPins(contentsOf: url) }
    }

    @Test func badPinFilesAreTyped() throws {
        let keys = try #require(Self.keys)
        let other = try NoteSigner(name: "other.test/log", key: TestEd25519Key(), crypto: PlatformTransparencyCrypto())
        let text = "log \(keys.log.verifier.verifierKey)\nlog \(other.verifier.verifierKey)\nquorum none\n"
        let several = try Self.file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(at: several) }
        #expect(throws: LogPins.Failure.severalLogKeys([TestLogKeys.origin, "other.test/log"])) {
            try LogPins(contentsOf: several)
        }
        #expect(try LogPins(contentsOf: several, verifierKey: other.verifier.verifierKey).origin == "other.test/log")
        let large = try Self.file([UInt8](repeating: 0x20, count: LogPins.maximumFileBytes + 1))
        defer { try? FileManager.default.removeItem(at: large) }
        #expect(throws: LogPins.Failure.unreadable(path: large.path, limit: LogPins.maximumFileBytes)) {
            try LogPins(contentsOf: large)
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)")
        #expect(throws: LogPins.Failure.unreadable(path: missing.path, limit: LogPins.maximumFileBytes)) {
            try LogPins(contentsOf: missing)
        }
        let binary = try Self.file([0xFF, 0xFE, 0x00, 0x41])
        defer { try? FileManager.default.removeItem(at: binary) }
        #expect(throws: LogPins.Failure.notText(path: binary.path)) { try LogPins(contentsOf: binary) }
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

extension Checkers {
    /// The record check of docs/auditing.md ("Checking one record from an OCSF line"), run as written with
    /// Python's `hashlib` and the `cryptography` package's Ed25519, accepts every checkpointed line of a real log
    /// and refuses an edited event, an edited proof, another key, and a pending line, each by its own reason.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct OCSFRecordSnippetTests {
        /// The ```python block of docs/auditing.md that defines `check_record(`.
        static func snippet() throws -> String {
            let block = try RepositoryFiles.codeBlock("python", in: "docs/auditing.md", containing: "def check_record(")
            return try #require(block, "the snippet is in the docs")
        }

        /// `members`' `unmapped` object with `name` set to `value`.
        static func settingUnmapped(
            _ name: String,
            _ value: JSONValue
        ) -> (inout [(name: String, value: JSONValue)]) -> Void {
            { members in
                guard let index = members.firstIndex(where: { $0.name == "unmapped" }),
                    var unmapped = members[index].value.objectMembers
                else { return }
                unmapped.removeAll { $0.name == name }
                unmapped.append((name, value))
                members[index].value = .object(unmapped)
            }
        }

        @Test func theDocumentedCheckProvesRealLinesAndRefusesEdits() async throws {
            let (server, verifier, _) = try await OCSFExportTests.signedLog()
            defer { Task { await server.stop() } }
            let lines = try await OCSFExportTests.lines(of: server)
            let checkpointed = lines.filter { $0.contains("\"status\":\"checkpointed\"") }
            let pending = try #require(lines.last)
            let sample = try #require(checkpointed.first { $0.contains("\"event_code\":\"signin.succeeded\"") })
            let proof = try #require(try JSONParser().parse(sample)["unmapped"]?["proof"])
            var path = proof["inclusion_proof"]?.arrayValue ?? []
            path[0] = .string(Data(repeating: 0, count: 32).base64EncodedString())
            let editedProof = try #require(proof.objectMembers).map {
                $0.name == "inclusion_proof" ? ($0.name, JSONValue.array(path)) : $0
            }
            let cases = [
                try OCSFSamples.edited(sample, Self.settingUnmapped("outcome", .string("failure"))),
                try OCSFSamples.edited(sample, Self.settingUnmapped("proof", .object(editedProof))),
                pending,
            ]
            // Another key whose base64 holds a "+", the separator of a verifier key's fields (half of all keys).
            var other = try NoteSigner(name: "ocsf.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
            for _ in 0..<64 where other.verifierKey.split(separator: "+").count == 3 {
                other = try NoteSigner(name: "ocsf.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
            }
            #expect(other.verifierKey.split(separator: "+").count > 3)
            let driver = """
                import sys
                lines = open(sys.argv[1]).read().splitlines()
                good, bad = lines[:-3], lines[-3:]
                for vkey in [sys.argv[2], sys.argv[3]]:
                    proved = 0
                    for line in good:
                        try:
                            position, size, _ = check_record(line, vkey)
                            proved += 1
                        except ValueError as refusal:
                            print("refused:", refusal)
                            break
                    print("proved", proved)
                for line in bad:
                    try:
                        check_record(line, sys.argv[2])
                        print("accepted")
                    except ValueError as refusal:
                        print("refused:", refusal)
                """
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocsf-check-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let script = folder.appendingPathComponent("check.py")
            let input = folder.appendingPathComponent("lines.jsonl")
            try (try Self.snippet() + "\n\n" + driver).write(to: script, atomically: true, encoding: .utf8)
            try ((checkpointed + cases).joined(separator: "\n") + "\n").write(
                to: input,
                atomically: true,
                encoding: .utf8
            )
            let output = try await ChildProcess.run(
                "/usr/bin/env",
                ["python3", script.path, input.path, verifier.verifierKey, other.verifierKey]
            )
            #expect(output.status == 0, "\(output.stderr)")
            #expect(
                output.stdout.split(separator: "\n").map(String.init) == [
                    "proved \(checkpointed.count)",
                    "refused: the checkpoint is not signed by the log's key",
                    "proved 0",
                    "refused: the event's fields do not hash to its digest",
                    "refused: the inclusion proof does not lead to the checkpoint's root",
                    "refused: pending: fetch the checkpoint and the inclusion proof",
                ],
                "\(output.stdout) \(output.stderr)"
            )
            #expect(checkpointed.count >= 300)
        }
    }
}

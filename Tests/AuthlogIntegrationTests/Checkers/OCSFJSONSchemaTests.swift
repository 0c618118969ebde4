import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// authlog's OCSF lines validate against OCSF 1.8.0 with a validator that shares nothing with authlog's:
    /// the JSON Schema that the `ocsf-json-schema` package generates for each line's class and listed profiles
    /// from the 1.8.0 schema as schema.ocsf.io exports it, checked by Python's `jsonschema`
    /// (Tests/AuthlogCryptoTests/Python/ocsfcheck.py). The lines: every type of the catalogue with each outcome,
    /// few and all columns, no evidence, pending and checkpointed (``OCSFSamples``), and every line of a real
    /// signed log. Two altered lines show the validator refuses what 1.8.0 does not allow. Skipped where python3
    /// lacks `jsonschema` or `ocsf-json-schema` (`.ci/install-deps --tests` installs both), except under `CI=true`,
    /// where it runs and fails.
    @Suite(.enabled(if: TestDatabase.isAvailable && PythonModules.areAvailable(["jsonschema", "ocsf_json_schema"])))
    struct OCSFJSONSchemaTests {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../AuthlogCryptoTests/Python/ocsfcheck.py").standardizedFileURL.path

        @Test func everyLineValidatesAgainstTheOCSFJSONSchema() async throws {
            let (server, _, _) = try await OCSFExportTests.signedLog()
            defer { Task { await server.stop() } }
            let real = try await OCSFExportTests.lines(of: server)
            let samples = OCSFSamples.lines().map(\.line)
            let sample = try #require(real.first { $0.contains("\"event_code\":\"signin.succeeded\"") })
            let attestationOnTheClass = try OCSFSamples.edited(sample) { members in
                guard let index = members.firstIndex(where: { $0.name == "unmapped" }),
                    let list = members[index].value["attestation_list"]
                else { return }
                members.append(("attestation_list", list))
            }
            let withoutUser = try OCSFSamples.edited(sample) { $0.removeAll { $0.name == "user" } }
            let lines = samples + real + [attestationOnTheClass, withoutUser]
            let output = try await ChildProcess.run(
                "/usr/bin/env",
                ["python3", Self.script],
                input: Data((lines.joined(separator: "\n") + "\n").utf8)
            )
            #expect(output.status == 0, "\(output.stderr)")
            let report = try JSONParser().parse(Array(output.stdout.utf8))
            #expect(report["checked"]?.integerValue == Int64(lines.count))
            #expect(report["classes"]?.objectMembers?.count == 5, "every class authlog uses: \(report)")
            let problems = report["problems"]?.arrayValue ?? []
            let refused = problems.compactMap { $0["line"]?.integerValue }
            #expect(refused == [Int64(lines.count - 1), Int64(lines.count)], "only the altered lines: \(problems)")
            let reasons = problems.map { ($0["errors"]?.arrayValue ?? []).compactMap(\.stringValue) }
            #expect(
                reasons.first == ["(event): Additional properties are not allowed ('attestation_list' was unexpected)"]
            )
            #expect(reasons.last == ["(event): 'user' is a required property"])
            #expect(real.count >= 320 && samples.count >= EventType.allCases.count * 6)
        }
    }
}

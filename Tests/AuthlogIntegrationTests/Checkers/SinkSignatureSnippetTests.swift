import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// The receiver's verification snippet of docs/operations.md ("Pushing events to a SIEM"), run as written
    /// with Python's own `hmac`, accepts what authlog signs and refuses an altered body, another secret and a
    /// stale timestamp.
    @Suite
    struct SinkSignatureSnippetTests {
        /// The ```python block of docs/operations.md that defines `verify(secret`.
        static func snippet() throws -> String {
            let block = try RepositoryFiles.codeBlock(
                "python",
                in: "docs/operations.md",
                containing: "def verify(secret"
            )
            return try #require(block, "the snippet is in the docs")
        }

        @Test func theDocumentedSnippetChecksWhatAuthlogSigns() async throws {
            let secret = "a-sink-secret-of-at-least-thirty-two-chars"
            let body = Array("{\"position\":1,\"type\":\"signin.succeeded\"}\n".utf8)
            let now = Int64(Date().timeIntervalSince1970)
            let fresh = SinkPayload.signature(of: body, secret: Array(secret.utf8), timestamp: now)
            let stale = SinkPayload.signature(of: body, secret: Array(secret.utf8), timestamp: now - 3600)
            let driver = """
                import base64, sys
                body = base64.b64decode(sys.argv[1])
                results = [
                    verify(b"\(secret)", "\(fresh)", body),
                    verify(b"\(secret)", "\(fresh)", body + b" "),
                    verify(b"another-secret-of-at-least-thirty-two", "\(fresh)", body),
                    verify(b"\(secret)", "\(stale)", body),
                    verify(b"\(secret)", "v1=00", body),
                ]
                print(" ".join("yes" if r else "no" for r in results))
                """
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("sink-verify-\(UUID()).py")
            try (try Self.snippet() + "\n\n" + driver).write(to: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: script) }
            let output = try await ChildProcess.run(
                "/usr/bin/env",
                ["python3", script.path, Data(body).base64EncodedString()]
            )
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout == "yes no no no no\n", "\(output.stdout) \(output.stderr)")
        }
    }
}

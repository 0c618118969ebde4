import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// The shell blocks of README.md and docs/*.md marked as runnable, run as written in order, in a fresh
    /// directory whose `.build/debug/authlog` is the one under test, with no database configured: the commands
    /// start their own embedded cluster, as a new user's would.
    ///
    /// - `<!-- runnable -->` before a fenced block: the block runs whole under `bash -e -o pipefail`; it must
    ///   exit 0 and write nothing to standard error that names a missing command or file (its `curl -f` calls
    ///   fail on any HTTP error). What it left running in the background is killed when it exits.
    /// - `<!-- transcript -->` before a fenced block of `$ command` lines each followed by its output: each
    ///   command runs under bash, and what it prints (standard output and error together) must be exactly the
    ///   lines the block shows after it.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct DocsRunTests {
        struct Block {
            var file: String
            var line: Int
            var kind: String
            var text: String
        }

        /// Every marked block of README.md and docs/*.md, in that order.
        static func blocks() throws -> [Block] {
            let docs = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.url("docs").path)
                .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
            var blocks: [Block] = []
            for file in ["README.md"] + docs {
                let lines = try String(contentsOf: RepositoryFiles.url(file), encoding: .utf8)
                    .components(separatedBy: "\n")
                var index = 0
                while index < lines.count {
                    let marker = lines[index].trimmingCharacters(in: .whitespaces)
                    guard marker == "<!-- runnable -->" || marker == "<!-- transcript -->",
                        index + 1 < lines.count, lines[index + 1].hasPrefix("```")
                    else {
                        index += 1
                        continue
                    }
                    let end = lines[(index + 2)...].firstIndex { $0.hasPrefix("```") } ?? lines.count
                    blocks.append(
                        Block(
                            file: file,
                            line: index + 2,
                            kind: marker.contains("runnable") ? "runnable" : "transcript",
                            text: lines[(index + 2)..<end].joined(separator: "\n")
                        )
                    )
                    index = end + 1
                }
            }
            return blocks
        }

        /// A fresh directory where `.build/debug/authlog` is the binary under test and `docs/examples` the
        /// checkout's, and an environment with no database, no `AUTHLOG_` setting and the binary on PATH.
        static func sandbox() throws -> (directory: String, environment: [String: String]) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-docs-\(UUID())").path
            let binaries = URL(fileURLWithPath: CLIProcess.executable).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory + "/.build", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/docs", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/.build/debug",
                withDestinationPath: binaries
            )
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/docs/examples",
                withDestinationPath: RepositoryFiles.url("docs/examples").path
            )
            var environment = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("AUTHLOG_") && !$0.key.hasPrefix("PG")
            }
            environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            return (directory, environment)
        }

        /// The transcript's commands, each with the output lines the block shows after it.
        static func steps(of transcript: String) -> [(command: String, output: [String])] {
            var steps: [(command: String, output: [String])] = []
            for line in transcript.components(separatedBy: "\n") {
                if line.hasPrefix("$ ") {
                    steps.append((String(line.dropFirst(2)), []))
                } else if !steps.isEmpty {
                    steps[steps.count - 1].output.append(line)
                }
            }
            return steps
        }

        @Test func everyMarkedBlockRunsAsWritten() async throws {
            let blocks = try Self.blocks()
            #expect(blocks.filter { $0.kind == "runnable" }.count >= 1, "README's curl loop is marked runnable")
            #expect(blocks.filter { $0.kind == "transcript" }.count >= 1)
            let (directory, environment) = try Self.sandbox()
            var failure: (any Error)?
            do {
                try await Self.run(blocks, in: directory, environment: environment)
            } catch {
                failure = error
            }
            // The embedded cluster the blocks started is stopped whatever happened.
            _ = try await ChildProcess.run(
                "/usr/bin/env",
                ["bash", "-c", ".build/debug/authlog db stop"],
                environment: environment,
                in: URL(fileURLWithPath: directory)
            )
            if let failure { throw failure }
        }

        static func run(_ blocks: [Block], in directory: String, environment: [String: String]) async throws {
            for block in blocks {
                let place = "\(block.file):\(block.line)"
                switch block.kind {
                case "runnable":
                    let output = try await ChildProcess.run(
                        "/usr/bin/env",
                        // A block that fails half-way leaves no server of its own running.
                        [
                            "bash", "-e", "-o", "pipefail", "-c",
                            "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + block.text,
                        ],
                        environment: environment,
                        in: URL(fileURLWithPath: directory)
                    )
                    #expect(output.status == 0, "\(place) exited \(output.status): \(output.stdout)\n\(output.stderr)")
                    for problem in ["command not found", "No such file or directory"] {
                        #expect(!output.stderr.contains(problem), "\(place): \(output.stderr)")
                    }
                default:
                    for step in Self.steps(of: block.text) {
                        let output = try await ChildProcess.run(
                            "/usr/bin/env",
                            ["bash", "-o", "pipefail", "-c", step.command],
                            environment: environment,
                            in: URL(fileURLWithPath: directory),
                            mergingErrors: true
                        )
                        let printed =
                            output.stdout.isEmpty
                            ? []
                            : output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                                .map(String.init).dropLast(output.stdout.hasSuffix("\n") ? 1 : 0)
                        #expect(Array(printed) == step.output, "\(place): `\(step.command)` printed:\n\(output.stdout)")
                    }
                }
            }
        }
    }
}

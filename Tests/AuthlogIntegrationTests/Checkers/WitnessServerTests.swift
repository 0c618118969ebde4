import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import AuthlogWitness
import Foundation
import Testing

extension Checkers {
    /// `authlog witness`'s `add-checkpoint` over real HTTP on 127.0.0.1, each refusal with the status C2SP
    /// tlog-witness fixes for it (and the 409 body and Content-Type it fixes).
    @Suite(.serialized)
    struct WitnessServerTests {
        let witnessKey: PrivateKey
        let signer: CosignatureSigner

        init() throws {
            self.witnessKey = try PrivateKey.generate(for: .edDSA)
            self.signer = try CosignatureSigner(name: "witness.test/w1", key: self.witnessKey)
        }

        func start(_ logs: [MemoryLog], directory: String) async throws -> WitnessServer {
            let witness = try Witness(
                signer: self.signer,
                logs: logs.map { Witness.Log(origin: $0.signer.name, verifiers: [$0.signer.verifier]) },
                stateDirectory: directory
            )
            return try await WitnessServer.start(witness)
        }

        @Test func cosignsExtendsAndRefusesRollbacksForksAndBadProofs() async throws {
            var log = try MemoryLog(origin: "log.test/a")
            log.grow(to: 100)
            let directory = try scratchDirectory()
            let server = try await self.start([log], directory: directory)
            defer { try? FileManager.default.removeItem(atPath: directory) }

            let first = try await server.add(try log.request(old: 0, size: 5))
            #expect(first.status == 200, "\(first.text)")
            let line = try #require(NoteText.signature(Substring(first.text.dropLast())))
            #expect(first.text.hasSuffix("\n") && first.text.filter { $0 == "\n" }.count == 1)
            let body = try #require(NoteText(try log.note(5))).body
            #expect(self.signer.verifier.timestamp(of: line, body: body) != nil)

            // Old size 0 again: the witness holds 5, so 409 with `5\n` as text/x.tlog.size.
            let stale = try await server.add(try log.request(old: 0, size: 8))
            #expect(stale.status == 409)
            #expect(stale.header("Content-Type") == "text/x.tlog.size")
            #expect(stale.text == "5\n")

            #expect(try await server.add(try log.request(old: 5, size: 8)).status == 200)
            // The same checkpoint again from its own size: cosigned again.
            #expect(try await server.add(try log.request(old: 8, size: 8)).status == 200)

            // A rollback: an older checkpoint from the size held is 400 (old size above the checkpoint's); from an
            // older size 409 naming the size held.
            #expect(try await server.add(try log.request(old: 8, size: 6, proof: [])).status == 400)
            let rollback = try await server.add(try log.request(old: 5, size: 6))
            #expect(rollback.status == 409 && rollback.text == "8\n")

            // A fork at the same size: 422.
            let fork = try await server.add(try log.request(old: 8, size: 8, note: try log.note(8, root: log.root(7))))
            #expect(fork.status == 422)
            // A fork at a larger size (another tree's root, the honest proof): 422.
            let forked = try await server.add(
                try log.request(old: 8, size: 12, note: try log.note(12, root: log.root(11)))
            )
            #expect(forked.status == 422)
            // A flipped proof hash, a dropped one, an added one: 422.
            var proof = log.proof(from: 8, to: 13)
            proof[0][3] ^= 1
            #expect(try await server.add(try log.request(old: 8, size: 13, proof: proof)).status == 422)
            #expect(
                try await server.add(
                    try log.request(old: 8, size: 13, proof: Array(log.proof(from: 8, to: 13).dropLast()))
                )
                .status == 422
            )
            #expect(
                try await server.add(
                    try log.request(old: 8, size: 13, proof: log.proof(from: 8, to: 13) + [log.root(3)])
                )
                .status == 422
            )
            // A size far beyond the tree (but below 2^63): no proof reaches it, 422.
            let far = try await server.add(
                try log.request(
                    old: 8,
                    size: 1 << 62,
                    proof: log.proof(from: 8, to: 13),
                    note: try log.signer.sign(
                        Checkpoint(origin: log.signer.name, size: 1 << 62, root: log.root(13)).body
                    )
                )
            )
            #expect(far.status == 422)

            // Still at 8: the refusals changed nothing, and a restart reads the same state from disk.
            await server.stop()
            let restarted = try await self.start([log], directory: directory)
            let after = try await restarted.add(try log.request(old: 0, size: 20))
            #expect(after.status == 409 && after.text == "8\n")
            #expect(try await restarted.add(try log.request(old: 8, size: 20)).status == 200)

            // The monitoring endpoint serves the cosigned note; another origin hash is 404.
            let originHash = Hex.encode(SHA256.hash(Array(log.signer.name.utf8)))
            let stored = try await restarted.client.send("GET", "/\(originHash)/checkpoint")
            #expect(stored.status == 200)
            let storedNote = try #require(NoteText(stored.text))
            #expect(Checkpoint(body: storedNote.body)?.size == 20)
            #expect(try log.signer.verifier.open(stored.text) == storedNote.body)
            #expect(
                storedNote.signatures.contains { self.signer.verifier.timestamp(of: $0, body: storedNote.body) != nil }
            )
            #expect(
                try await restarted.client.send("GET", "/\(String(repeating: "0", count: 64))/checkpoint").status == 404
            )
            await restarted.stop()
        }

        @Test func refusalsOfOriginSignatureAndForm() async throws {
            var log = try MemoryLog(origin: "log.test/b")
            log.grow(to: 10)
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try await self.start([log], directory: directory)

            // Unknown origin: 404.
            var stranger = try MemoryLog(origin: "log.test/unknown")
            stranger.grow(to: 3)
            #expect(try await server.add(try stranger.request(old: 0, size: 3)).status == 404)
            // The right origin signed by another key under the same name (another key ID): 403.
            var impostor = try MemoryLog(origin: "log.test/b")
            impostor.grow(to: 3)
            #expect(try await server.add(try impostor.request(old: 0, size: 3)).status == 403)
            // The log's key, a flipped signature byte: 403.
            let note = try log.note(3)
            var parsed = try #require(NoteText(note))
            var blob = parsed.signatures[0].blob
            blob[20] ^= 1
            parsed.signatures[0].line = "\u{2014} \(parsed.signatures[0].name) \(Data(blob).base64EncodedString())"
            #expect(try await server.add(try log.request(old: 0, size: 3, note: parsed.text)).status == 403)
            // A valid signature beside a bad one by the same key: still 403 (signed-note: the note is malformed).
            let both = note + parsed.signatures[0].line + "\n"
            #expect(try await server.add(try log.request(old: 0, size: 3, note: both)).status == 403)
            // A valid signature beside an unknown key's line: accepted (unknown keys are ignored).
            let withStranger = note + (try #require(NoteText(try stranger.note(3)))).signatures[0].line + "\n"
            #expect(try await server.add(try log.request(old: 0, size: 3, note: withStranger)).status == 200)

            // Form: each 400.
            let valid = try String(decoding: log.request(old: 3, size: 5), as: UTF8.self)
            let proofLine = Data(log.root(2)).base64EncodedString()
            let checkpointNote = try log.note(5)
            let malformed: [(String, String)] = [
                ("no empty line", "old 3\n" + checkpointNote.replacingOccurrences(of: "\n\n", with: "\n")),
                ("old with a leading zero", valid.replacingOccurrences(of: "old 3\n", with: "old 03\n")),
                ("a negative old size", valid.replacingOccurrences(of: "old 3\n", with: "old -3\n")),
                ("old above 2^63-1", valid.replacingOccurrences(of: "old 3\n", with: "old 9223372036854775808\n")),
                ("no old line", valid.replacingOccurrences(of: "old 3\n", with: "")),
                ("old without a space", valid.replacingOccurrences(of: "old 3\n", with: "old3\n")),
                ("a proof line not base64", "old 3\n!!!!\n\n" + checkpointNote),
                (
                    "a proof line of 31 bytes",
                    "old 3\n\(Data(Array(log.root(2).prefix(31))).base64EncodedString())\n\n" + checkpointNote
                ),
                ("64 proof lines", "old 3\n" + String(repeating: proofLine + "\n", count: 64) + "\n" + checkpointNote),
                (
                    "a size above 2^63-1",
                    "old 3\n\n" + checkpointNote.replacingOccurrences(of: "\n5\n", with: "\n9223372036854775808\n")
                ),
                ("a note without signatures", "old 3\n\n" + (try #require(NoteText(checkpointNote))).body + "\n"),
                ("old above the checkpoint's size", valid.replacingOccurrences(of: "old 3\n", with: "old 6\n")),
                ("an empty body", ""),
            ]
            for (what, body) in malformed {
                let answer = try await server.add(Array(body.utf8))
                #expect(answer.status == 400, "\(what): \(answer.status) \(answer.text)")
            }
            #expect(try await server.add([0x6F, 0x6C, 0x64, 0x20, 0xFF, 0x0A, 0x0A]).status == 400)
            // 63 proof lines is the limit of the form: a wrong proof of 63 lines is 422, not 400.
            let sixtyThree = "old 3\n" + String(repeating: proofLine + "\n", count: 63) + "\n" + checkpointNote
            #expect(try await server.add(Array(sixtyThree.utf8)).status == 422)
            // A body over the limit: 413, read no further.
            let large = try await server.add([UInt8](repeating: 0x41, count: Witness.bodyLimit + 1))
            #expect(large.status == 413)
            // Size 0 with another root than the empty tree's, and a proof with old size 0: 422.
            var fresh = try MemoryLog(origin: "log.test/c")
            fresh.grow(to: 4)
            let freshDirectory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: freshDirectory) }
            let other = try await self.start([fresh], directory: freshDirectory)
            #expect(
                try await other.add(try fresh.request(old: 0, size: 0, note: try fresh.note(0, root: fresh.root(1))))
                    .status
                    == 422
            )
            #expect(try await other.add(try fresh.request(old: 0, size: 4, proof: [fresh.root(2)])).status == 422)
            #expect(try await other.add(try fresh.request(old: 0, size: 0)).status == 200)
            await other.stop()
            await server.stop()
        }

        @Test func ofConcurrentSubmissionsFromOneOldSizeOnlyOneIsCosigned() async throws {
            var log = try MemoryLog(origin: "log.test/d")
            log.grow(to: 64)
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try await self.start([log], directory: directory)
            #expect(try await server.add(try log.request(old: 0, size: 10)).status == 200)
            let bodies = try (11...42).map { try log.request(old: 10, size: $0) }
            let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for body in bodies {
                    group.addTask {
                        let answer = try await server.add(body)
                        return (answer.status, answer.text)
                    }
                }
                var statuses: [(Int, String)] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            #expect(statuses.filter { $0.0 == 409 }.count == bodies.count - 1)
            // Every 409 names the one size that was cosigned, and the state file holds it.
            let winner = try #require(Set(statuses.filter { $0.0 == 409 }.map(\.1)).first)
            #expect(Set(statuses.filter { $0.0 == 409 }.map(\.1)).count == 1)
            let size = try #require(Int64(winner.dropLast()))
            let file = try #require(
                FileManager.default.contents(
                    atPath: "\(directory)/\(Hex.encode(SHA256.hash(Array(log.signer.name.utf8)))).note"
                )
            )
            #expect(Checkpoint(body: try #require(NoteText(String(decoding: file, as: UTF8.self))).body)?.size == size)
            await server.stop()
        }

        @Test func nothingIsCosignedUnlessTheStateIsPersistedFirst() async throws {
            var log = try MemoryLog(origin: "log.test/f")
            log.grow(to: 12)
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try await self.start([log], directory: directory)
            #expect(try await server.add(try log.request(old: 0, size: 5)).status == 200)
            // The state cannot be written (a plain file stands where its directory was, so no temporary file can
            // be made beside it): 500, no cosignature, and the witness still holds 5, in memory and on disk.
            let file = "\(directory)/\(Hex.encode(SHA256.hash(Array(log.signer.name.utf8)))).note"
            try FileManager.default.moveItem(atPath: directory, toPath: directory + ".away")
            #expect(FileManager.default.createFile(atPath: directory, contents: Data("not a directory\n".utf8)))
            let refused = try await server.add(try log.request(old: 5, size: 8))
            #expect(refused.status == 500 && !refused.text.contains("\u{2014}"))
            try FileManager.default.removeItem(atPath: directory)
            try FileManager.default.moveItem(atPath: directory + ".away", toPath: directory)
            let kept = try #require(
                NoteText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self))
            )
            #expect(Checkpoint(body: kept.body)?.size == 5)
            let held = try await server.add(try log.request(old: 0, size: 8))
            #expect(held.status == 409 && held.text == "5\n")
            #expect(try await server.add(try log.request(old: 5, size: 8)).status == 200)
            await server.stop()
            // A state file that is not a cosigned checkpoint of its log: the witness does not start.
            try Data("not a note\n".utf8).write(to: URL(fileURLWithPath: file))
            #expect(throws: WitnessStateError.self) {
                try Witness(
                    signer: self.signer,
                    logs: [Witness.Log(origin: log.signer.name, verifiers: [log.signer.verifier])],
                    stateDirectory: directory
                )
            }
        }

        @Test func sequentialCosignaturesEachPersistedFirst() async throws {
            var log = try MemoryLog(origin: "log.test/g")
            log.grow(to: 1_001)
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try await self.start([log], directory: directory)
            let bodies = try (0..<200).map { try log.request(old: $0 * 5, size: $0 * 5 + 5) }
            let clock = ContinuousClock()
            let started = clock.now
            for body in bodies { #expect(try await server.add(body).status == 200) }
            let seconds = (clock.now - started) / .seconds(1)
            print("witness: 200 add-checkpoint requests, each verified and fsynced, in \(seconds) s")
            await server.stop()
        }

        @Test func cosignaturesVerifyInPythonCryptography() async throws {
            guard CosignatureCrossCheck.isAvailable else { return }
            var log = try MemoryLog(origin: "log.test/e")
            log.grow(to: 9)
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try await self.start([log], directory: directory)
            let answer = try await server.add(try log.request(old: 0, size: 9))
            #expect(answer.status == 200)
            let note = try log.note(9) + answer.text
            let ok = try await CosignatureCrossCheck.run(
                note: note,
                logKey: log.signer.verifier.verifierKey,
                witnessKeys: [self.signer.verifier.verifierKey]
            )
            #expect(ok.status == 0, "python refused: \(ok.stdout) \(ok.stderr)")
            #expect(ok.stdout.contains("\"name\": \"witness.test/w1\""))
            // A flipped byte in the body: python refuses the cosignature (and the log's signature).
            let tampered = note.replacingOccurrences(of: "\n9\n", with: "\n8\n")
            #expect(
                try await CosignatureCrossCheck.run(
                    note: tampered,
                    logKey: log.signer.verifier.verifierKey,
                    witnessKeys: [self.signer.verifier.verifierKey]
                ).status == 1
            )
            await server.stop()
        }
    }
}

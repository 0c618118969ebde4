import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Logging
import Testing

/// The OCSF lines of real stored events: what a push sink receives over HTTP, `GET /v1/events?format=ocsf` and
/// `authlog export --format ocsf` are the same bytes for the same events, every line validates strictly against
/// OCSF 1.8.0's files and its attestation against the proposed profile's,
/// and each carries the log's evidence: a proof in the chosen checkpoint, or `pending` after it.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct OCSFExportTests {
    /// A server whose log is signed with a key of its own, its verifier, and a log of real traffic: sign-ins
    /// over HTTP, generated events of many types, one checkpoint, and events after it.
    static func signedLog() async throws -> (ServerHarness, NoteVerifier, checkpointSize: Int64) {
        let (server, verifier) = try await ServerHarness.startSigningCheckpoints(origin: "ocsf.test/log")
        for subject in ["alice", "bob"] {
            let answer = try await server.post("/v1/signin/dev", .members(["subject": .string(subject)]))
            #expect(answer.status == 200)
        }
        var traffic = TrafficGenerator(seed: 36)
        try await server.components.store.append(AppendCommand(events: traffic.events(count: 300)))
        try await server.components.store.sealPending()
        let checkpointer = try #require(server.components.checkpointer)
        let signed = try await checkpointer.signNow()
        try await server.components.store.append(AppendCommand(events: traffic.events(count: 20)))
        try await server.components.store.sealPending()
        return (server, verifier, signed.size)
    }

    /// The OCSF lines of every event of `server`'s log, as ``OCSFExport`` makes them.
    static func lines(of server: ServerHarness) async throws -> [String] {
        let connection = try await server.database.connect()
        let page = try await EventReader().page(after: 0, limit: 1000, filter: EventFilter(), on: connection)
        return try await OCSFExport.lines(of: page, on: connection)
    }

    @Test func aPushSinkAPullExportAndTheCommandGiveTheSameBytesAndEveryLineValidates() async throws {
        let (server, _, checkpointSize) = try await Self.signedLog()
        defer { Task { await server.stop() } }
        let connection = try await server.database.connect()
        let head = try await EventReader().head(on: connection).size
        let page = try await EventReader().page(after: 0, limit: Int(head), filter: EventFilter(), on: connection)
        #expect(page.events.count == Int(head))
        let pushed = try await SinkPayload.body(of: page, format: .ocsf, on: connection)
        let lines = String(decoding: pushed, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == Int(head))
        let delivered = try await server.deliverToSink(format: "ocsf")
        #expect(delivered.prefix(pushed.count) == pushed[...], "a sink of format ocsf received these bytes over HTTP")

        let exported = try await CLIProcess.run(
            ["export", "--format", "ocsf", "--limit", String(head)],
            databaseURL: server.database.conninfo
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(Array(exported.stdout.utf8) == pushed, "authlog export --format ocsf prints the sink's bytes")

        let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "siem", scope: .audit)
        let answer = try await server.client.send(
            "GET",
            "/v1/events?format=ocsf&limit=\(head)",
            headers: ServerHarness.appHeaders + [("Authorization", "Bearer \(key)")]
        )
        #expect(answer.status == 200)
        let expected = "{\"events\":[" + lines.joined(separator: ",") + "],\"next\":\(head),\"head\":"
        #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix(expected), "GET wraps the sink's lines")

        let schema = try OCSFSchema.checkedIn()
        let profile = try OCSFSchema.checkedInWithRecordIntegrity()
        var types = Set<String>()
        var statuses: [String: Int] = [:]
        for line in lines {
            let event = try JSONParser().parse(line)
            let problems = schema.problems(inLine: event, attestationsAgainst: profile)
            #expect(event["unmapped"]?["attestation_list"]?.arrayValue?.count == 1)
            #expect(problems.isEmpty, "\(problems) in \(line)")
            types.insert(event["metadata"]?["event_code"]?.stringValue ?? "")
            statuses[event["unmapped"]?["proof"]?["status"]?.stringValue ?? "none", default: 0] += 1
        }
        #expect(types.count >= 10, "real events of many types: \(types.sorted())")
        #expect(types.isSuperset(of: ["signin.succeeded", "user.registered", "token.issued", "signin.failed"]))
        #expect(statuses["checkpointed"] == Int(checkpointSize), "the events the checkpoint covers")
        #expect(statuses["pending"] == Int(head - checkpointSize), "the events after it: \(statuses)")
        #expect(head - checkpointSize >= 20)

        // What a SIEM correlates a real sign-in over HTTP on (issue 36 §4 found all of it missing).
        let signins = try lines.map { try JSONParser().parse($0) }.filter {
            $0["metadata"]?["event_code"]?.stringValue == "signin.succeeded"
                && $0["unmapped"]?["provider"]?.stringValue == "dev"
        }
        #expect(signins.count == 2, "alice's and bob's sign-ins over HTTP")
        for signin in signins {
            let unmapped = signin["unmapped"]
            #expect(signin["metadata"]?["correlation_uid"] == unmapped?["request_id"])
            #expect(signin["metadata"]?["correlation_uid"]?.stringValue?.isEmpty == false)
            #expect(signin["session"]?["uid"] == unmapped?["session_id"] && unmapped?["session_id"] != nil)
            #expect(signin["user"]?["uid"] == unmapped?["user_id"] && unmapped?["user_id"] != nil)
            #expect(signin["auth_protocol_id"]?.integerValue == 99 && signin["auth_protocol"] == .string("development"))
            #expect(signin["service"]?["name"] == .string("authlog"))
            #expect(signin["dst_endpoint"]?["svc_name"] == .string("authlog"))
            #expect(signin["src_endpoint"]?["ip"] == unmapped?["ip"] && unmapped?["ip"] != nil)
        }
    }

    @Test func eachCheckpointedLineProvesItsEventInTheSignedTree() async throws {
        let (server, verifier, _) = try await Self.signedLog()
        defer { Task { await server.stop() } }
        let lines = try await Self.lines(of: server)
        var previousDigest: String?
        for line in lines {
            let event = try JSONParser().parse(line)
            let position = try #require(event["metadata"]?["sequence"]?.integerValue)
            let attestation = try #require(event["unmapped"]?["attestation_list"]?.arrayValue?.first)
            let digest = try #require(event["unmapped"]?["digest"]?.stringValue)
            #expect(attestation["fingerprint"]?["value"]?.stringValue == digest)
            #expect(attestation["prev_event"]?["fingerprint"]?["value"]?.stringValue == previousDigest)
            previousDigest = digest
            let proof = try #require(event["unmapped"]?["proof"])
            guard proof["status"]?.stringValue == "checkpointed" else { continue }
            let note = try #require(proof["checkpoint"]?.stringValue)
            let opened = try NoteKeyring([verifier]).open(note)
            let checkpoint = try #require(Checkpoint(body: opened.body), "the note is the log's, signed by its key")
            #expect(proof["tree_size"]?.integerValue == checkpoint.size)
            let leaf = MerkleTree.leafHash(position: position, digest: try #require(Hex.decode(digest)))
            #expect(event["unmapped"]?["leaf_hash"]?.stringValue == Hex.encode(leaf))
            let path = (proof["inclusion_proof"]?.arrayValue ?? []).compactMap {
                $0.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init)
            }
            #expect(
                InclusionProofCheck.holds(
                    index: position - 1,
                    size: checkpoint.size,
                    leafHash: leaf,
                    root: checkpoint.root,
                    proof: path
                ),
                "position \(position)"
            )
            #expect(attestation["authority_uid"]?.stringValue == "ocsf.test/log+" + Hex.encode(verifier.keyHash))
        }
    }
}

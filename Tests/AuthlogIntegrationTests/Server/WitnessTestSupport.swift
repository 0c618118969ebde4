import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import AuthlogWitness
import Foundation
import Logging
import ServiceLifecycle

/// A log kept in memory for the witness tests: leaves, roots, consistency proofs (planned by ``MerkleProof``,
/// hashed here from the leaves) and notes signed by its key.
struct MemoryLog {
    let signer: NoteSigner
    var leaves: [[UInt8]] = []

    init(origin: String) throws {
        self.signer = try NoteSigner(name: origin, key: try PrivateKey.generate(for: .edDSA))
    }

    mutating func grow(to size: Int) {
        while self.leaves.count < size {
            let position = Int64(self.leaves.count + 1)
            self.leaves.append(MerkleTree.leafHash(position: position, digest: SHA256.hash(Array("\(position)".utf8))))
        }
    }

    func hash(_ start: Int, _ end: Int) -> [UInt8] {
        if end - start == 1 { return self.leaves[start] }
        let split = start + Int(Self.largestPowerOfTwo(below: end - start))
        return MerkleTree.nodeHash(self.hash(start, split), self.hash(split, end))
    }

    static func largestPowerOfTwo(below count: Int) -> Int {
        var power = 1
        while power << 1 < count { power <<= 1 }
        return power
    }

    func root(_ size: Int) -> [UInt8] { size == 0 ? MerkleTree.emptyRoot : self.hash(0, size) }

    func proof(from old: Int, to new: Int) -> [[UInt8]] {
        guard old > 0, old < new else { return [] }
        return MerkleProof.consistency(oldSize: Int64(old), newSize: Int64(new)).map {
            self.hash(Int($0.start), Int($0.end))
        }
    }

    func note(_ size: Int, root: [UInt8]? = nil) throws -> String {
        try self.signer.sign(
            Checkpoint(origin: self.signer.name, size: Int64(size), root: root ?? self.root(size)).body
        )
    }

    /// The `add-checkpoint` body from `old` to `size`.
    func request(old: Int, size: Int, proof: [[UInt8]]? = nil, note: String? = nil) throws -> [UInt8] {
        let lines = (proof ?? self.proof(from: old, to: size)).map { Data($0).base64EncodedString() + "\n" }.joined()
        return Array("old \(old)\n\(lines)\n\(try note ?? self.note(size))".utf8)
    }
}

/// A witness's HTTP server on 127.0.0.1 with a port the system picks.
final class WitnessServer: Sendable {
    let port: Int
    let witness: Witness
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, witness: Witness, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.witness = witness
        self.group = group
        self.task = task
    }

    static func start(_ witness: Witness) async throws -> WitnessServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test-witness")
        logger.logLevel = .warning
        let app = try buildWitnessApplication(
            witness: witness,
            host: "127.0.0.1",
            port: 0,
            logger: logger,
            onServerRunning: { continuation.yield($0) }
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CocoaError(.fileReadUnknown)
        }
        return WitnessServer(port: port, witness: witness, group: group, task: task)
    }

    var client: HTTPTestClient { HTTPTestClient(baseURL: "http://127.0.0.1:\(self.port)") }

    func add(_ body: [UInt8]) async throws -> HTTPTestClient.Answer {
        try await self.client.send("POST", "/add-checkpoint", body: body)
    }

    func stop() async {
        await self.group.triggerGracefulShutdown()
        _ = try? await self.task.value
    }
}

extension HTTPTestClient.Answer {
    var text: String { String(decoding: self.body, as: UTF8.self) }
}

/// A scratch directory removed at the end of the test.
func scratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("witness-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

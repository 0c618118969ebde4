import AuthlogCrypto
import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogWitness

/// A witness whose state file was renamed into place but whose directory could not be flushed holds the new
/// note on disk: it answers 500 (nothing it cannot keep is promised), and its memory moves to the note on disk,
/// so a second request from the old size is refused as a restart would refuse it, never cosigned from memory.
/// A step that fails before the rename leaves both at the old note.
struct WitnessStateDurabilityTests {
    let origin = "durable.test/log"
    let log: NoteSigner
    let witness: CosignatureSigner

    init() throws {
        self.log = try NoteSigner(name: self.origin, key: try PrivateKey.generate(for: .edDSA))
        self.witness = try CosignatureSigner(name: "witness.test/w1", key: try PrivateKey.generate(for: .edDSA))
    }

    /// An `add-checkpoint` request from `old` for a checkpoint of `size` leaves of root `root`, with no proof.
    func request(old: Int64, size: Int64, root: UInt8) throws -> AddCheckpointRequest {
        let body = Checkpoint(origin: self.origin, size: size, root: [UInt8](repeating: root, count: 32)).body
        return try AddCheckpointRequest(body: Array("old \(old)\n\n\(try self.log.sign(body))".utf8))
    }

    func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "authlog-witness-state-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aRenameWithoutTheDirectoryFlushMovesMemoryToTheDisk() async throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notFlushed = WitnessStateFile(directory: directory, origin: self.origin) {
            path,
            bytes throws(TransparencyError) in
            try DurableFile.replace(path, with: bytes)
            throw TransparencyError(.notDurable, "\(path) is replaced but not durable: cannot flush the directory")
        }
        let log = try WitnessedLog(origin: self.origin, verifiers: [self.log.verifier], file: notFlushed)
        let first = await log.add(try self.request(old: 0, size: 3, root: 3), signer: self.witness, time: 1_795_600_000)
        #expect(first.status == 500)
        #expect(await log.size == 3, "the file holds the checkpoint of 3: so does memory")
        let stored = try #require(try notFlushed.read())
        let remembered = await log.latestNote
        #expect(stored.checkpoint.size == 3 && remembered == stored.note)
        let again = await log.add(try self.request(old: 0, size: 4, root: 4), signer: self.witness, time: 1_795_600_001)
        #expect(again.status == 409 && again.body == "3\n", "not cosigned again from the old size")
        let restarted = try WitnessedLog(origin: self.origin, verifiers: [self.log.verifier], directory: directory)
        let reread = await restarted.latestNote
        #expect(reread == stored.note)
    }

    @Test func aStepThatFailsBeforeTheRenameKeepsTheOldNote() async throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let refusing = WitnessStateFile(directory: directory, origin: self.origin) {
            path,
            _ throws(TransparencyError) in
            throw TransparencyError(.fileSystem, "cannot create \(path): No space left on device")
        }
        let log = try WitnessedLog(origin: self.origin, verifiers: [self.log.verifier], file: refusing)
        let first = await log.add(try self.request(old: 0, size: 3, root: 3), signer: self.witness, time: 1_795_600_000)
        #expect(first.status == 500)
        #expect(await log.size == 0)
        #expect(await log.latestNote == nil)
        #expect(try refusing.read() == nil)
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import AuthlogTransparency
import AuthlogWitness
import Foundation
import Hummingbird
import Synchronization

/// A C2SP tlog-witness on 127.0.0.1 that does not cosign until the test opens it: while closed, every
/// `add-checkpoint` is answered `503` (the server backs off and tries again); once open, the requests go to a
/// real ``Witness`` (AuthlogWitness) that checks the log's signature and consistency proofs and cosigns.
final class GatedWitness: Sendable {
    /// The witness's cosignature key name.
    let name: String
    /// Its `witness.vkey` line, for the server's `log.witnesses` and the app's pins.
    let verifierKey: String
    /// Its submission prefix (`<url>/add-checkpoint` is POSTed).
    let url: String
    private let gate: Gate
    private let runner: ServiceRunner
    private let stateDirectory: String

    private init(name: String, verifierKey: String, gate: Gate, runner: ServiceRunner, stateDirectory: String) {
        self.name = name
        self.verifierKey = verifierKey
        self.url = runner.baseURL
        self.gate = gate
        self.runner = runner
        self.stateDirectory = stateDirectory
    }

    /// Starts a closed witness called `name` for the log `origin` signed by `logKey`.
    static func start(name: String, origin: String, logKey: NoteVerifier) async throws -> GatedWitness {
        let signer = try CosignatureSigner(name: name, key: try PrivateKey.generate(for: .edDSA))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gated-witness-\(UUID())").path
        let witness = try Witness(
            signer: signer,
            logs: [Witness.Log(origin: origin, verifiers: [logKey])],
            stateDirectory: directory
        )
        let gate = Gate(witness: witness)
        let router = Router()
        router.post("/add-checkpoint") { request, _ -> Response in
            let body = Array(buffer: try await request.body.collect(upTo: Witness.bodyLimit))
            let (status, type, text) = await gate.answer(body)
            return Response(
                status: HTTPResponse.Status(code: status),
                headers: [.contentType: type],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        return GatedWitness(
            name: name,
            verifierKey: signer.verifier.verifierKey,
            gate: gate,
            runner: try await ServiceRunner.start(router: router),
            stateDirectory: directory
        )
    }

    /// The server's `log.witnesses` entry for this witness.
    var configuration: JSONValue {
        .members(["name": .string(self.name), "url": .string(self.url), "verifier_key": .string(self.verifierKey)])
    }

    /// Lets the requests through to the witness from now on.
    func open() { self.gate.isOpen.withLock { $0 = true } }

    /// How many requests were refused while closed, and how many the witness cosigned.
    var counts: (refused: Int, cosigned: Int) { self.gate.counts.withLock { $0 } }

    /// Stops the server and removes the witness's state.
    func stop() async {
        await self.runner.stop()
        try? FileManager.default.removeItem(atPath: self.stateDirectory)
    }

    /// The gate and the witness behind it.
    private final class Gate: Sendable {
        let witness: Witness
        let isOpen = Mutex(false)
        let counts = Mutex((refused: 0, cosigned: 0))

        init(witness: Witness) { self.witness = witness }

        /// The status, content type and body of the answer to an `add-checkpoint` request.
        func answer(_ body: [UInt8]) async -> (Int, String, String) {
            guard self.isOpen.withLock({ $0 }) else {
                self.counts.withLock { $0.refused += 1 }
                return (503, "text/plain; charset=utf-8", "the witness is not cosigning yet\n")
            }
            let answer = await self.witness.addCheckpoint(body: body)
            if answer.status == 200 { self.counts.withLock { $0.cosigned += 1 } }
            return (answer.status, answer.contentType, answer.body)
        }
    }
}

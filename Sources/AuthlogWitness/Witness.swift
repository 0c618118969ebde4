import AuthlogCore
import AuthlogCrypto
public import AuthlogTransparency
import Foundation

/// A C2SP tlog-witness: cosigns checkpoints of the logs it knows after checking each log's signature and a
/// consistency proof from the checkpoint it last cosigned, which it keeps in its own state directory.
public struct Witness: Sendable {
    /// One witnessed log, as configured.
    public struct Log: Sendable {
        /// The origin line its checkpoints carry.
        public var origin: String
        /// Its note verifier keys.
        public var verifiers: [NoteVerifier]

        /// A log of `origin` checked with `verifiers`.
        public init(origin: String, verifiers: [NoteVerifier]) {
            self.origin = origin
            self.verifiers = verifiers
        }
    }

    /// The largest `add-checkpoint` body read: 63 proof lines and a checkpoint with dozens of signatures fit
    /// many times over.
    public static let bodyLimit = 256 << 10

    /// The witness's cosigning key and name.
    public let signer: CosignatureSigner
    private let logs: [String: WitnessedLog]
    private let clock: @Sendable () -> UInt64

    /// A witness signing with `signer` for `logs`, keeping state in `stateDirectory` (created if missing).
    /// - Throws: when the directory cannot be made, two logs share an origin, or a stored state is unreadable.
    public init(
        signer: CosignatureSigner,
        logs: [Log],
        stateDirectory: String,
        clock: (@Sendable () -> UInt64)? = nil
    ) throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        var byOrigin: [String: WitnessedLog] = [:]
        for log in logs {
            guard byOrigin[log.origin] == nil else {
                throw WitnessStateError(description: "two --log keys name the origin \(log.origin)")
            }
            byOrigin[log.origin] = try WitnessedLog(
                origin: log.origin,
                verifiers: log.verifiers,
                directory: stateDirectory
            )
        }
        self.signer = signer
        self.logs = byOrigin
        self.clock = clock ?? Self.now
    }

    /// Answers an `add-checkpoint` request body.
    public func addCheckpoint(body: [UInt8]) async -> WitnessAnswer {
        let request: AddCheckpointRequest
        do {
            request = try AddCheckpointRequest(body: body)
        } catch {
            return error
        }
        guard let log = self.logs[request.checkpoint.origin] else {
            return .unknownOrigin
        }
        if let refusal = Self.checkSignatures(request.note, verifiers: log.verifiers) { return refusal }
        guard request.oldSize <= request.checkpoint.size else {
            return .badRequest("the old size exceeds the checkpoint's size")
        }
        return await log.add(request, signer: self.signer, time: self.clock())
    }

    /// The latest cosigned note of the log whose origin has the SHA-256 `originHash` (lowercase hex).
    public func latestNote(originHash: String) async -> String? {
        for (origin, log) in self.logs where Hex.encode(SHA256.hash(Array(origin.utf8))) == originHash {
            return await log.latestNote
        }
        return nil
    }

    /// The current POSIX time.
    @Sendable static func now() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }

    /// 403 unless a signature line of a trusted key verifies and none of a trusted key fails.
    static func checkSignatures(_ note: NoteText, verifiers: [NoteVerifier]) -> WitnessAnswer? {
        var verified = false
        for signature in note.signatures {
            for verifier in verifiers
            where verifier.name == signature.name && Array(signature.blob.prefix(4)) == verifier.keyHash {
                guard verifier.isValidSignature(signature.blob, of: note.body) else {
                    return .forbidden("a signature by the log's key \(verifier.name) does not verify")
                }
                verified = true
            }
        }
        return verified ? nil : .forbidden("no signature by a key trusted for this origin")
    }
}

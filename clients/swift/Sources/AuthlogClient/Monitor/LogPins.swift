public import AuthlogTransparency
public import Foundation

/// What the app trusts about authlog's log: its origin and verifier key, and the witnesses whose cosignatures
/// make a checkpoint witnessed (a C2SP tlog-policy). Given to the client, they turn on its ``LogMonitor``.
///
/// Pins come in code (``init(origin:verifierKey:policy:crypto:)``,
/// ``init(origin:verifierKey:witnesses:quorum:crypto:)``) or from a file the app ships
/// (``init(contentsOf:verifierKey:crypto:)``).
public struct LogPins: Sendable {
    /// The log's origin, the first line of its checkpoints (such as `auth.example.com/log`); the name of
    /// ``logKey``.
    public let origin: String
    /// The log's checkpoint key.
    public let logKey: NoteVerifier
    /// The witnesses and their quorum; `nil` when the app pins no witness (receipts then prove only the log's
    /// own signature).
    public let policy: WitnessPolicy?

    /// Pins the log whose checkpoint key is `logKey` and the witness `policy`.
    /// - Throws: ``Failure/logNotInPolicy(_:)`` when the policy lists logs and `logKey` is not one of them.
    public init(logKey: NoteVerifier, policy: WitnessPolicy?) throws(Failure) {
        if let policy, !policy.logs.isEmpty,
            !policy.logs.contains(where: { $0.verifier.verifierKey == logKey.verifierKey })
        {
            throw .logNotInPolicy(logKey.verifierKey)
        }
        self.origin = logKey.name
        self.logKey = logKey
        self.policy = policy
    }

    /// Pins the log `origin` with the verifier key `verifierKey` (`<name>+<hex hash>+<base64 key>`, as
    /// `authlog keys` prints it) and the witness policy text `policy`: C2SP tlog-policy (`log`, `witness`,
    /// `group` and `quorum` lines) or the old form (`witness <vkey>` lines and `quorum <k>`).
    /// - Throws: ``Failure``: `.invalidKey`, `.originMismatch` (the key's name is not `origin`),
    ///   `.invalidPolicy`, `.logNotInPolicy`.
    public init(
        origin: String,
        verifierKey: String,
        policy: String? = nil,
        crypto: any TransparencyCrypto = PlatformTransparencyCrypto()
    ) throws(Failure) {
        let key = try Self.logKey(verifierKey, origin: origin, crypto: crypto)
        var witnesses: WitnessPolicy?
        if let policy { witnesses = try Self.policy(policy, crypto) }
        try self.init(logKey: key, policy: witnesses)
    }

    /// Pins the log `origin` with the verifier key `verifierKey`, and witnesses by their cosigner verifier keys
    /// (`<name>+<hex id>+<base64(0x04 ‖ key)>`): a checkpoint is witnessed when `quorum` of them cosigned it.
    /// - Throws: ``Failure``: `.invalidKey`, `.originMismatch`, `.invalidPolicy` (a quorum outside
    ///   1…`witnesses.count`, or two witnesses with one name or key).
    public init(
        origin: String,
        verifierKey: String,
        witnesses: [String],
        quorum: Int,
        crypto: any TransparencyCrypto = PlatformTransparencyCrypto()
    ) throws(Failure) {
        let key = try Self.logKey(verifierKey, origin: origin, crypto: crypto)
        var cosigners: [CosignatureVerifier] = []
        for witness in witnesses {
            do {
                cosigners.append(try CosignatureVerifier(verifierKey: witness, crypto: crypto))
            } catch {
                throw .invalidKey(error.message)
            }
        }
        let policy: WitnessPolicy
        do {
            policy = try WitnessPolicy(witnesses: cosigners, quorum: quorum)
        } catch {
            throw .invalidPolicy(error.message)
        }
        try self.init(logKey: key, policy: policy)
    }

    /// The largest pin file read: a witness policy's limit.
    public static let maximumFileBytes = WitnessPolicy.maximumBytes

    /// Pins read from the file at `url`, a C2SP tlog-policy the app ships: the log is its `log` line (there
    /// must be exactly one when `verifierKey` is nil), and its witnesses and quorum are the policy's. The old
    /// policy form has no `log` line: give the log's key in `verifierKey` then. At most
    /// ``maximumFileBytes`` are read.
    /// - Throws: ``Failure``: `.unreadable`, `.notText`, `.invalidPolicy`, `.invalidKey`, `.noLogKey`,
    ///   `.severalLogKeys`, `.logNotInPolicy`.
    public init(
        contentsOf url: URL,
        verifierKey: String? = nil,
        crypto: any TransparencyCrypto = PlatformTransparencyCrypto()
    ) throws(Failure) {
        guard let bytes = BoundedFile.contents(atPath: url.path, limit: Self.maximumFileBytes) else {
            throw .unreadable(path: url.path, limit: Self.maximumFileBytes)
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw .notText(path: url.path) }
        let policy = try Self.policy(text, crypto)
        let key: NoteVerifier
        if let verifierKey {
            do {
                key = try NoteVerifier(verifierKey: verifierKey, crypto: crypto)
            } catch {
                throw .invalidKey(error.message)
            }
        } else {
            guard let only = policy.logs.first else { throw .noLogKey }
            guard policy.logs.count == 1 else { throw .severalLogKeys(policy.logs.map(\.verifier.name)) }
            key = only.verifier
        }
        try self.init(logKey: key, policy: policy)
    }

    /// The log key of `text`, whose name must be `origin`.
    private static func logKey(
        _ text: String,
        origin: String,
        crypto: any TransparencyCrypto
    ) throws(Failure) -> NoteVerifier {
        let key: NoteVerifier
        do {
            key = try NoteVerifier(verifierKey: text, crypto: crypto)
        } catch {
            throw .invalidKey(error.message)
        }
        guard key.name == origin else { throw .originMismatch(origin: origin, keyName: key.name) }
        return key
    }

    /// The policy of `text`.
    private static func policy(_ text: String, _ crypto: any TransparencyCrypto) throws(Failure) -> WitnessPolicy {
        do {
            return try WitnessPolicy(text: text, crypto: crypto)
        } catch {
            throw .invalidPolicy(error.message)
        }
    }
}

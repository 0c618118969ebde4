import AuthlogAccounts
public import AuthlogTransparency
import Foundation

/// The log's witnesses with their defaults applied and keys parsed: the `log.witnesses`,
/// `log.witness_quorum` and `log.witness_interval_seconds` settings, or instead of the first two a C2SP
/// tlog-policy file, `log.witness_policy`.
public struct WitnessSettings: Sendable {
    /// One witness.
    public struct Witness: Sendable {
        /// Its name (the key name of its cosignatures).
        public var name: String
        /// `<url>/add-checkpoint`.
        public var addCheckpointURL: String
        /// Its cosignature verifier.
        public var verifier: CosignatureVerifier
    }

    /// The witnesses, in configuration order (empty: no witnessing).
    public let witnesses: [Witness]
    /// The policy a checkpoint is witnessed under (nil without witnesses).
    public let policy: WitnessPolicy?
    /// The least time between two submissions to one witness.
    public let interval: Duration

    /// Resolves the witness settings of `configuration` for a log signed with `checkpointKey` (nil: this process
    /// has no checkpoint key): a `log.witness_policy` that lists logs must list that key.
    /// - Throws: ``ServerConfiguration/Invalid`` naming the setting that is wrong.
    public init(configuration: ServerConfiguration, checkpointKey: NoteVerifier?) throws {
        let log = configuration.log
        let seconds = try ServiceSettings.checked(
            log?.witnessIntervalSeconds,
            "log.witness_interval_seconds",
            default: ConfigurationDefaults.witnessIntervalSeconds,
            in: 1...86_400
        )
        self.interval = .seconds(seconds)
        if let file = log?.witnessPolicy {
            guard log?.witnesses == nil, log?.witnessQuorum == nil else {
                throw ServerConfiguration.Invalid(
                    description:
                        "log.witness_policy replaces log.witnesses and log.witness_quorum: give one or the other"
                )
            }
            (self.witnesses, self.policy) = try Self.policy(file: file, checkpointKey: checkpointKey)
            return
        }
        var witnesses: [Witness] = []
        for (index, entry) in (log?.witnesses ?? []).enumerated() {
            let at = "log.witnesses[\(index)]"
            let verifier: CosignatureVerifier
            do {
                verifier = try CosignatureVerifier(verifierKey: entry.verifierKey)
            } catch {
                throw ServerConfiguration.Invalid(description: "\(at).verifier_key: \(error)")
            }
            guard verifier.name == entry.name else {
                throw ServerConfiguration.Invalid(
                    description: "\(at): the verifier key names \(verifier.name), not \(entry.name)"
                )
            }
            witnesses.append(
                Witness(
                    name: entry.name,
                    addCheckpointURL: try Self.addCheckpointURL(entry.url, at: "\(at).url"),
                    verifier: verifier
                )
            )
        }
        self.witnesses = witnesses
        if witnesses.isEmpty {
            guard log?.witnessQuorum == nil else {
                throw ServerConfiguration.Invalid(description: "log.witness_quorum needs log.witnesses")
            }
            self.policy = nil
        } else {
            let quorum = try ServiceSettings.checked(
                log?.witnessQuorum,
                "log.witness_quorum",
                default: witnesses.count,
                in: 1...witnesses.count
            )
            do {
                self.policy = try WitnessPolicy(witnesses: witnesses.map(\.verifier), quorum: quorum)
            } catch {
                throw ServerConfiguration.Invalid(description: "log.witnesses: \(error)")
            }
        }
    }
}

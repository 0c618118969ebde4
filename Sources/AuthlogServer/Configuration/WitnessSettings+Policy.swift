import AuthlogTransparency
import Foundation

extension WitnessSettings {
    /// The witnesses and the policy of the C2SP tlog-policy `file` (`log.witness_policy`): each `witness` line
    /// names its URL (the submission prefix) and its quorum says when a checkpoint is witnessed. When it has `log`
    /// lines, one of them must be `checkpointKey`, this log's key: a policy written for another log (or before a
    /// key rotation) would have readers refuse every checkpoint the server calls witnessed. Witnesses are named by
    /// their keys' names, as the cosignatures are, so two of the same key name are refused.
    /// - Throws: ``ServerConfiguration/Invalid`` naming the file, and the line or the key when the policy is wrong.
    static func policy(
        file: String,
        checkpointKey: NoteVerifier?
    ) throws -> (witnesses: [Witness], policy: WitnessPolicy) {
        guard let data = BoundedFile.contents(atPath: file, limit: WitnessPolicy.maximumBytes) else {
            throw ServerConfiguration.Invalid(
                description: "log.witness_policy: cannot read \(file) (or it is larger than 64 KiB)"
            )
        }
        let policy: WitnessPolicy
        do {
            policy = try WitnessPolicy(text: String(decoding: data, as: UTF8.self))
        } catch {
            throw ServerConfiguration.Invalid(description: "log.witness_policy: \(file): \(error)")
        }
        if let checkpointKey, !policy.acceptsLog(checkpointKey) {
            let listed = policy.logs.map(\.verifier.verifierKey).joined(separator: ", ")
            throw ServerConfiguration.Invalid(
                description: "log.witness_policy: \(file): its log lines do not list this log's checkpoint key "
                    + "\(checkpointKey.verifierKey) (they list \(listed))"
            )
        }
        var witnesses: [Witness] = []
        for witness in policy.witnesses {
            let at = "log.witness_policy: \(file): the witness \(witness.name)"
            guard let url = witness.url else {
                throw ServerConfiguration.Invalid(description: "\(at) has no URL to submit checkpoints to")
            }
            guard !witnesses.contains(where: { $0.name == witness.verifier.name }) else {
                throw ServerConfiguration.Invalid(
                    description: "\(at) has the key name \(witness.verifier.name) of another witness"
                )
            }
            witnesses.append(
                Witness(
                    name: witness.verifier.name,
                    addCheckpointURL: try Self.addCheckpointURL(url, at: "\(at): its URL"),
                    verifier: witness.verifier
                )
            )
        }
        return (witnesses, policy)
    }

    /// `<url>/add-checkpoint` of a witness's submission prefix `url`.
    /// - Throws: ``ServerConfiguration/Invalid`` saying that what is `at` must be an http(s) URL without a query.
    static func addCheckpointURL(_ url: String, at: String) throws -> String {
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil,
            parsed.query == nil
        else {
            throw ServerConfiguration.Invalid(description: "\(at) must be an http(s) URL without a query")
        }
        return (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/add-checkpoint"
    }
}

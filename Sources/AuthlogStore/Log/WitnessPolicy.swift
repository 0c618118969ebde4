public import AuthlogCrypto

/// Which witnesses a reader trusts and how many of them must cosign a checkpoint (k of n) for it to count as
/// witnessed. The text form, one directive a line (`#` starts a comment):
///
///     witness <verifier key of type 0x04>
///     quorum <k>
public struct WitnessPolicy: Sendable {
    /// The trusted witnesses.
    public let witnesses: [CosignatureVerifier]
    /// How many of them must cosign.
    public let quorum: Int

    /// A policy of `witnesses` and `quorum`.
    /// - Throws: ``CryptoError`` `.invalidKey` when the quorum is not between 1 and the number of witnesses, or
    ///   two witnesses share a name.
    public init(witnesses: [CosignatureVerifier], quorum: Int) throws(CryptoError) {
        guard quorum >= 1, quorum <= witnesses.count else {
            throw CryptoError(.invalidKey, "the witness quorum must be between 1 and the number of witnesses")
        }
        guard Set(witnesses.map(\.name)).count == witnesses.count else {
            throw CryptoError(.invalidKey, "two witnesses of a policy have the same name")
        }
        self.witnesses = witnesses
        self.quorum = quorum
    }

    /// Parses the text form.
    /// - Throws: ``CryptoError`` `.invalidKey` naming the line that is wrong.
    public init(text: String) throws(CryptoError) {
        var witnesses: [CosignatureVerifier] = []
        var quorum: Int?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let fields = line.split(separator: " ")
            guard !fields.isEmpty else { continue }
            switch (fields[0], fields.count) {
            case ("witness", 2): witnesses.append(try CosignatureVerifier(verifierKey: String(fields[1])))
            case ("quorum", 2):
                guard quorum == nil, let k = Int(fields[1]) else {
                    throw CryptoError(.invalidKey, "line \(number + 1): one `quorum <k>` with a number")
                }
                quorum = k
            default:
                throw CryptoError(.invalidKey, "line \(number + 1): expected `witness <vkey>` or `quorum <k>`")
            }
        }
        try self.init(witnesses: witnesses, quorum: quorum ?? witnesses.count)
    }

    /// What a cosigned note shows.
    public struct Result: Sendable, Equatable {
        /// The witnesses whose cosignature verifies, with its timestamp, in the policy's order.
        public var cosigned: [(name: String, time: UInt64)]
        /// The witnesses with a line of their name and key ID that does not verify.
        public var invalid: [String]
        /// Whether at least `quorum` witnesses cosigned validly.
        public var quorumMet: Bool

        public static func == (lhs: Result, rhs: Result) -> Bool {
            lhs.cosigned.map(\.name) == rhs.cosigned.map(\.name) && lhs.cosigned.map(\.time) == rhs.cosigned.map(\.time)
                && lhs.invalid == rhs.invalid && lhs.quorumMet == rhs.quorumMet
        }
    }

    /// Checks the cosignatures of `note` (a signed checkpoint). Lines of unknown keys are ignored; nil when the
    /// text is not a signed note. It does not check the log's own signature (``NoteVerifier`` does).
    public func check(note: String) -> Result? {
        guard let parsed = NoteText(note) else { return nil }
        var cosigned: [(name: String, time: UInt64)] = []
        var invalid: [String] = []
        for witness in self.witnesses {
            let lines = parsed.signatures.filter(witness.matches)
            guard !lines.isEmpty else { continue }
            if let time = lines.lazy.compactMap({ witness.timestamp(of: $0, body: parsed.body) }).first {
                cosigned.append((witness.name, time))
            } else {
                invalid.append(witness.name)
            }
        }
        return Result(cosigned: cosigned, invalid: invalid, quorumMet: cosigned.count >= self.quorum)
    }
}

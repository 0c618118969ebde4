/// Which logs and witnesses a reader trusts and which witnesses must cosign a checkpoint for it to count as
/// witnessed: a C2SP tlog-policy (c2sp.org/tlog-policy), read from its text form by ``init(text:)``, or a k of n
/// built in code by ``init(witnesses:quorum:)``.
public struct WitnessPolicy: Sendable {
    /// A log whose checkpoints the policy accepts (`log <vkey> [<url>]`).
    public struct Log: Sendable {
        /// The log's note verifier; by convention its key name is the log's origin.
        public var verifier: NoteVerifier
        /// Where the log is served, when the policy says.
        public var url: String?

        /// A log checked with `verifier`, served at `url`.
        public init(verifier: NoteVerifier, url: String? = nil) {
            self.verifier = verifier
            self.url = url
        }
    }

    /// A witness the quorum may name (`witness <name> <vkey> [<url>]`).
    public struct Witness: Sendable {
        /// Its name in the policy (in the old form, its key's name).
        public var name: String
        /// Its cosignature verifier.
        public var verifier: CosignatureVerifier
        /// Where the witness is reached, when the policy says.
        public var url: String?

        /// A witness `name` checked with `verifier`, reached at `url`.
        public init(name: String, verifier: CosignatureVerifier, url: String? = nil) {
            self.name = name
            self.verifier = verifier
            self.url = url
        }
    }

    /// The logs, in the policy's order (empty when the policy lists none, as the old form never does).
    public let logs: [Log]
    /// The witnesses, in the policy's order.
    public let witnesses: [Witness]
    /// The rule that says which cosignatures make a checkpoint witnessed.
    public let quorum: Quorum

    /// A policy of `logs`, `witnesses` and `quorum`, as the parser builds it (names checked there).
    init(logs: [Log], witnesses: [Witness], quorum: Quorum) {
        self.logs = logs
        self.witnesses = witnesses
        self.quorum = quorum
    }

    /// The policy "at least `quorum` of `witnesses`" (each named by its key's name), accepting any log.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` when the quorum is not between 1 and the number of
    ///   witnesses, or two witnesses share a name or a key (a cosignature does not cover its key's name, so one
    ///   key under two names would count twice).
    public init(witnesses: [CosignatureVerifier], quorum: Int) throws(TransparencyError) {
        guard quorum >= 1, quorum <= witnesses.count else {
            throw TransparencyError(
                .invalidPolicy,
                "the witness quorum must be between 1 and the number of witnesses"
            )
        }
        guard Set(witnesses.map(\.name)).count == witnesses.count else {
            throw TransparencyError(.invalidPolicy, "two witnesses of a policy have the same name")
        }
        for (index, witness) in witnesses.enumerated() {
            if let earlier = witnesses[..<index].first(where: { $0.publicKey == witness.publicKey }) {
                throw TransparencyError(
                    .invalidPolicy,
                    "the witnesses \(earlier.name) and \(witness.name) have the same key"
                )
            }
        }
        self.init(
            logs: [],
            witnesses: witnesses.map { Witness(name: $0.name, verifier: $0) },
            quorum: Quorum(
                groups: [Quorum.Group(name: nil, threshold: quorum, members: witnesses.map { .witness($0.name) })],
                root: .group(0)
            )
        )
    }

    /// Whether the policy accepts checkpoints signed by `logKey`: true when it lists no log (the old form, or a
    /// policy of witnesses only), else when one of its `log` lines is that key (its name and public key).
    public func acceptsLog(_ logKey: NoteVerifier) -> Bool {
        self.logs.isEmpty || self.logs.contains { $0.verifier.verifierKey == logKey.verifierKey }
    }

    /// The policy's logs as a keyring, to open checkpoints with: a checkpoint counts only when one of them
    /// signed it.
    public var logKeyring: NoteKeyring { NoteKeyring(self.logs.map(\.verifier)) }

    /// The fewest witnesses whose cosignatures can meet the quorum (0 for `quorum none`): a checkpoint with
    /// fewer valid cosignatures cannot be witnessed.
    public var minimumCosigners: Int { self.quorum.minimumCosigners }

    /// What a cosigned note shows.
    public struct Result: Sendable, Equatable {
        /// The witnesses whose cosignature verifies, with its timestamp, in the policy's order.
        public var cosigned: [(name: String, time: UInt64)]
        /// The witnesses with a line of their name and key ID that does not verify.
        public var invalid: [String]
        /// Whether the cosignatures that verify meet the quorum.
        public var quorumMet: Bool

        /// Whether two results name the same witnesses, times and verdict.
        public static func == (lhs: Result, rhs: Result) -> Bool {
            lhs.cosigned.map(\.name) == rhs.cosigned.map(\.name) && lhs.cosigned.map(\.time) == rhs.cosigned.map(\.time)
                && lhs.invalid == rhs.invalid && lhs.quorumMet == rhs.quorumMet
        }
    }

    /// Checks the cosignatures of `note` (a signed checkpoint). Lines of unknown keys are ignored; nil when the
    /// text is not a signed note. It does not check the log's own signature (``logKeyring`` or a
    /// ``NoteVerifier`` does).
    public func check(note: String) -> Result? {
        guard let parsed = NoteText(note) else { return nil }
        var cosigned: [(name: String, time: UInt64)] = []
        var invalid: [String] = []
        // Every way of building a policy refuses one key twice; counting each key once keeps that true here.
        var counted: Set<[UInt8]> = []
        for witness in self.witnesses where counted.insert(witness.verifier.publicKey).inserted {
            let lines = parsed.signatures.filter(witness.verifier.matches)
            guard !lines.isEmpty else { continue }
            // A loop, not `lazy.compactMap(…).first`, which runs the closure twice for the element it returns:
            // each cosignature's Ed25519 check is made once.
            var verified: UInt64?
            for line in lines {
                if let time = witness.verifier.timestamp(of: line, body: parsed.body) {
                    verified = time
                    break
                }
            }
            if let verified {
                cosigned.append((witness.name, verified))
            } else {
                invalid.append(witness.name)
            }
        }
        let met = self.quorum.isMet(by: Set(cosigned.map(\.name)))
        return Result(cosigned: cosigned, invalid: invalid, quorumMet: met)
    }
}

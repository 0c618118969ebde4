extension WitnessPolicy {
    /// A policy's quorum (`quorum <name>`): a witness, a group of witnesses and groups, or none.
    public indirect enum Quorum: Sendable, Equatable, CustomStringConvertible {
        /// No cosignature is needed (`quorum none`).
        case none
        /// The witness of this name must cosign.
        case witness(String)
        /// At least `threshold` of the `members` must be met. `name` is the group's name in the policy; nil for
        /// the old form's "k of the policy's witnesses".
        case group(name: String?, threshold: Int, members: [Quorum])

        /// Whether cosignatures of the witnesses named in `cosigners` meet this quorum.
        public func isMet(by cosigners: Set<String>) -> Bool {
            switch self {
            case .none: true
            case .witness(let name): cosigners.contains(name)
            case .group(_, let threshold, let members):
                members.lazy.filter { $0.isMet(by: cosigners) }.prefix(threshold).count >= threshold
            }
        }

        /// The names of the witnesses this quorum can count.
        public var witnessNames: Set<String> {
            switch self {
            case .none: []
            case .witness(let name): [name]
            case .group(_, _, let members): members.reduce(into: []) { $0.formUnion($1.witnessNames) }
            }
        }

        /// The fewest cosigners that can meet the quorum: exact when a group's members share no witness (every
        /// k of n, and every policy whose groups nest without overlap); otherwise a lower bound, never more than
        /// the exact figure.
        public var minimumCosigners: Int {
            switch self {
            case .none: return 0
            case .witness: return 1
            case .group(_, let threshold, let members):
                let smallest = members.map(\.minimumCosigners).sorted().prefix(threshold)
                let disjoint = members.map(\.witnessNames.count).reduce(0, +) == self.witnessNames.count
                // Overlapping members may share cosigners; the k-th smallest member still needs that many.
                return disjoint ? smallest.reduce(0, +) : (smallest.last ?? 0)
            }
        }

        /// How the policy's quorum line names it: `none`, the witness's or group's name, or k in the old form.
        public var description: String {
            switch self {
            case .none: "none"
            case .witness(let name): name
            case .group(let name, let threshold, _): name ?? String(threshold)
            }
        }
    }
}

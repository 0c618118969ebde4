extension WitnessPolicy {
    /// A policy's quorum (`quorum <name>`): none, a witness, or a group of witnesses and earlier groups. Groups are
    /// kept flat, in the policy's line order, each naming its members by witness name or by the index of an
    /// earlier group, so a group that several groups share is evaluated once: every question is answered in one
    /// pass over the groups, linear in the policy's size.
    public struct Quorum: Sendable, Equatable, CustomStringConvertible {
        /// A member of a group: a witness by name, or an earlier group by its index in ``groups``.
        enum Member: Sendable, Equatable {
            case witness(String)
            case group(Int)
        }

        /// A group: at least `threshold` of its `members` must be met. `name` is nil for the old form's "k of the
        /// policy's witnesses".
        struct Group: Sendable, Equatable {
            var name: String?
            var threshold: Int
            var members: [Member]
        }

        /// The groups the quorum can reach, in line order; a group's members only name earlier groups.
        let groups: [Group]
        /// What must be met: nil for `quorum none`.
        let root: Member?
        /// The fewest cosigners that can meet the quorum (computed once).
        public let minimumCosigners: Int
        /// The names of the witnesses this quorum can count (computed once).
        public let witnessNames: Set<String>

        /// No cosignature is needed (`quorum none`).
        public static let none = Quorum(groups: [], root: nil)

        /// The witness `name` must cosign.
        public static func witness(_ name: String) -> Quorum {
            Quorum(groups: [], root: .witness(name))
        }

        /// A quorum of `root` over `groups` (in line order, members naming earlier groups only; the parser and
        /// ``WitnessPolicy/init(witnesses:quorum:)`` check that).
        init(groups: [Group], root: Member?) {
            self.groups = groups
            self.root = root
            var names: [Set<String>] = []
            var minimums: [Int] = []
            for group in groups {
                let memberNames = group.members.map { member -> Set<String> in
                    switch member {
                    case .witness(let name): [name]
                    case .group(let index): names[index]
                    }
                }
                let union = memberNames.reduce(into: Set<String>()) { $0.formUnion($1) }
                let smallest = group.members.map { member -> Int in
                    switch member {
                    case .witness: 1
                    case .group(let index): minimums[index]
                    }
                }.sorted().prefix(group.threshold)
                // Overlapping members may share cosigners; the k-th smallest member still needs that many.
                let disjoint = memberNames.map(\.count).reduce(0, +) == union.count
                names.append(union)
                minimums.append(disjoint ? smallest.reduce(0, +) : (smallest.last ?? 0))
            }
            switch root {
            case nil: (self.witnessNames, self.minimumCosigners) = ([], 0)
            case .witness(let name): (self.witnessNames, self.minimumCosigners) = ([name], 1)
            case .group(let index): (self.witnessNames, self.minimumCosigners) = (names[index], minimums[index])
            }
        }

        /// Whether cosignatures of the witnesses named in `cosigners` meet this quorum: one pass over the groups.
        public func isMet(by cosigners: Set<String>) -> Bool {
            var met: [Bool] = []
            met.reserveCapacity(self.groups.count)
            for group in self.groups {
                var count = 0
                for member in group.members where Self.isMet(member, cosigners, met) { count += 1 }
                met.append(count >= group.threshold)
            }
            return self.root.map { Self.isMet($0, cosigners, met) } ?? true
        }

        private static func isMet(_ member: Member, _ cosigners: Set<String>, _ met: [Bool]) -> Bool {
            switch member {
            case .witness(let name): cosigners.contains(name)
            case .group(let index): met[index]
            }
        }

        /// How the policy's quorum line names it: `none`, the witness's or group's name, or k in the old form.
        public var description: String {
            switch self.root {
            case nil: "none"
            case .witness(let name): name
            case .group(let index): self.groups[index].name ?? String(self.groups[index].threshold)
            }
        }
    }
}

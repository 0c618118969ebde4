import Foundation

extension LogVerifier.Report {
    /// Whether the log checked out (nothing broken, forked, or signed by an unknown key).
    public var passed: Bool {
        if case .intact = self { return true }
        return false
    }

    /// The verdict in one line, as `authlog verify` prints it and the evidence page shows it; `keyName` is the
    /// key the signatures were checked with (nil: none was given).
    public func summary(keyName: String?) -> String {
        switch self {
        case .intact(
            let events,
            let root,
            let checkpoints,
            let recorded,
            let unauthenticated,
            let macsUnchecked,
            let signedBy,
            let droppedThrough
        ):
            let roots = recorded == 0 ? "" : ", \(recorded) roots recorded by the log match"
            let before =
                unauthenticated == 0
                ? "" : ", \(unauthenticated) events from before event authentication carry no MAC"
            var notChecked: [String] = []
            if keyName == nil { notChecked.append("signatures not checked: no checkpoint key") }
            if macsUnchecked { notChecked.append("event MACs not checked: no event key") }
            let unchecked = notChecked.isEmpty ? "" : " (\(notChecked.joined(separator: "; ")))"
            let dropped =
                droppedThrough == 0
                ? ""
                : " from position \(droppedThrough + 1) (retention dropped 1…\(droppedThrough), as its sealed "
                    + "audit.retention_applied records)"
            return "log intact: \(events) events\(dropped), root \(Data(root).base64EncodedString()), "
                + "\(checkpoints) checkpoints match\(Self.signers(signedBy))\(roots)\(before)\(unchecked)"
        case .broken(let position, let reason):
            return "log broken at position \(position): \(reason)"
        case .fork(let size, let reason):
            return "log forked at size \(size): \(reason)"
        case .otherKey(let reason):
            return "log not verified: \(reason)"
        }
    }

    /// ` (signed by <key>: 3 stored and the outside checkpoint; <key>: 2 stored)`, or nothing without tallies.
    private static func signers(_ tallies: [LogVerifier.KeyTally]) -> String {
        guard !tallies.isEmpty else { return "" }
        let named = tallies.map { tally in
            let stored = tally.stored == 0 ? [] : ["\(tally.stored) stored"]
            return "\(tally.keyID): " + (stored + tally.outside).joined(separator: " and ")
        }
        return " (signed by " + named.joined(separator: "; ") + ")"
    }

    /// `authlog verify`'s exit status: 0 intact, 1 broken or forked, 4 signed by an unknown key.
    public var exitStatus: Int32 {
        switch self {
        case .intact: 0
        case .broken, .fork: 1
        case .otherKey: 4
        }
    }
}

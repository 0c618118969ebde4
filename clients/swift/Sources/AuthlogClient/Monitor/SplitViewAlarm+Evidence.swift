import Foundation

extension SplitViewAlarm {
    /// The alarm as text anyone can check with the log's public key: what was found, then both signed notes
    /// verbatim between marker lines, then the consistency proof the log gave (base64 hashes), if any. Each note
    /// opens with Go's `golang.org/x/mod/sumdb/note` (`note.Open` with the log's verifier key); the sizes and
    /// roots are the notes' second and third lines, and the proof checks with `tlog.CheckTree`.
    public var evidence: String {
        var lines = [
            "authlog split-view alarm: \(self.reason)",
            "detected at \(Self.time(self.detectedAt))",
            self.explanation,
            self.detail,
            "",
            "-----BEGIN KEPT CHECKPOINT (size \(self.keptSize))-----",
        ]
        lines.append(contentsOf: Self.lines(of: self.keptNote))
        lines.append("-----END KEPT CHECKPOINT-----")
        lines.append("-----BEGIN SHOWN CHECKPOINT (size \(self.shownSize))-----")
        lines.append(contentsOf: Self.lines(of: self.shownNote))
        lines.append("-----END SHOWN CHECKPOINT-----")
        if let proof = self.consistencyProof {
            let from = min(self.keptSize, self.shownSize)
            let to = max(self.keptSize, self.shownSize)
            lines.append("-----BEGIN CONSISTENCY PROOF (from \(from) to \(to), \(proof.count) hashes)-----")
            lines.append(contentsOf: proof.map { Data($0).base64EncodedString() })
            lines.append("-----END CONSISTENCY PROOF-----")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the reason means, in one sentence.
    private var explanation: String {
        switch self.reason {
        case .fork:
            "The log signed two checkpoints of the same size \(self.keptSize) with different roots: two histories."
        case .inconsistent:
            "The log's proof that the tree of \(self.keptSize) is a prefix of the tree of \(self.shownSize) "
                + "does not verify."
        case .rollback:
            "The log showed a tree of \(self.shownSize) after this device saw a tree of \(self.keptSize), and did "
                + "not prove that the smaller one is a prefix of it."
        case .unproven:
            "The log showed a bigger tree (\(self.shownSize)) without the consistency proof from the kept "
                + "one (\(self.keptSize)) it had to give."
        }
    }

    /// A note's lines, without the final empty one.
    private static func lines(of note: String) -> [String] {
        var lines = note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// `date` in RFC 3339, UTC, whole seconds.
    static func time(_ date: Date) -> String {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime]
        return format.string(from: date)
    }
}

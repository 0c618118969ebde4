extension WitnessPolicy {
    /// The largest policy text read.
    public static let maximumBytes = 64 * 1024
    /// The most `log` lines a policy may have (tlog-policy asks for at least 32).
    public static let maximumLogs = 64
    /// The most `witness` lines a policy may have (tlog-policy asks for at least 32).
    public static let maximumWitnesses = 128
    /// The most `group` lines a policy may have (tlog-policy asks for at least 32).
    public static let maximumGroups = 128

    /// Parses a policy's text: C2SP tlog-policy,
    ///
    ///     log <vkey> [<url>]
    ///     witness <name> <vkey> [<url>]
    ///     group <name> all|any|<k> <name>...
    ///     quorum <name>|none
    ///
    /// or the old form, recognised by a `witness` line with one argument: `witness <vkey>` lines and an
    /// optional `quorum <k>` (all of them when absent), where `#` starts a comment anywhere on a line.
    /// Keys are checked with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` naming the line that is wrong.
    public init(text: String, crypto: any TransparencyCrypto) throws(TransparencyError) {
        guard text.utf8.count <= Self.maximumBytes else {
            throw TransparencyError(.invalidPolicy, "the policy is larger than \(Self.maximumBytes / 1024) KiB")
        }
        // Split on the byte LF: "\r\n" is one Character, so splitting on Characters would keep a CRLF file whole.
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        if let index = lines.firstIndex(where: { $0.utf8.contains(0x0D) }) {
            throw TransparencyError(
                .invalidPolicy,
                "line \(index + 1): a carriage return (CRLF line endings are not allowed)"
            )
        }
        if OldPolicyForm.isOldForm(lines) {
            self = try OldPolicyForm.parse(lines, crypto: crypto)
        } else {
            var parser = PolicyParser(crypto: crypto)
            for (index, line) in lines.enumerated() {
                try parser.read(line, number: index + 1)
            }
            self = try parser.finish()
        }
    }
}

/// The old policy form: `witness <vkey>` lines and an optional `quorum <k>`, fields separated by spaces and `#`
/// starting a comment anywhere.
enum OldPolicyForm {
    /// Whether `lines` are in the old form: a `witness` line has one argument.
    static func isOldForm(_ lines: [Substring]) -> Bool {
        lines.contains { line in
            let fields = PolicyParser.fields(of: line.prefix { $0 != "#" })
            return fields.count == 2 && fields[0] == "witness"
        }
    }

    /// The policy of `lines`, its keys checked with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` naming the line that is wrong.
    static func parse(_ lines: [Substring], crypto: any TransparencyCrypto) throws(TransparencyError) -> WitnessPolicy {
        var witnesses: [(verifier: CosignatureVerifier, line: Int)] = []
        var quorum: (k: Int, line: Int)?
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let fields = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .split(separator: " ")
            guard !fields.isEmpty else { continue }
            switch (fields[0], fields.count) {
            case ("witness", 2):
                let witness: CosignatureVerifier
                do {
                    witness = try CosignatureVerifier(verifierKey: String(fields[1]), crypto: crypto)
                } catch {
                    throw TransparencyError(.invalidPolicy, "line \(number): \(error.message)")
                }
                guard !witnesses.contains(where: { $0.verifier.name == witness.name }) else {
                    throw TransparencyError(
                        .invalidPolicy,
                        "line \(number): two witnesses of a policy have the same name"
                    )
                }
                if let earlier = witnesses.first(where: { $0.verifier.publicKey == witness.publicKey }) {
                    throw TransparencyError(
                        .invalidPolicy,
                        "line \(number): the key of \(witness.name) is the key of \(earlier.verifier.name) "
                            + "(line \(earlier.line))"
                    )
                }
                witnesses.append((witness, number))
            case ("quorum", 2):
                guard quorum == nil, let k = Int(fields[1]) else {
                    throw TransparencyError(.invalidPolicy, "line \(number): one `quorum <k>` with a number")
                }
                quorum = (k, number)
            default:
                throw TransparencyError(
                    .invalidPolicy,
                    "line \(number): expected `witness <vkey>` or `quorum <k>`"
                )
            }
        }
        do {
            return try WitnessPolicy(witnesses: witnesses.map(\.verifier), quorum: quorum?.k ?? witnesses.count)
        } catch {
            // Names and keys are unique by now and there is a witness line: only the quorum line can be wrong.
            throw TransparencyError(.invalidPolicy, "line \(quorum?.line ?? lines.count): \(error.message)")
        }
    }
}

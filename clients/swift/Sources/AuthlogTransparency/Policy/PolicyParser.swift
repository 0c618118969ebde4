/// Reads a C2SP tlog-policy line by line (c2sp.org/tlog-policy): names are defined before they are used, so a
/// group or the quorum can only refer to lines above it and groups cannot be circular.
struct PolicyParser {
    private let crypto: any TransparencyCrypto
    private var logs: [(log: WitnessPolicy.Log, line: Int)] = []
    private var witnesses: [(witness: WitnessPolicy.Witness, line: Int)] = []
    /// Every defined name (witnesses and groups share one namespace) as a group member, with its line.
    private var names: [String: (member: WitnessPolicy.Quorum.Member, line: Int)] = [:]
    /// The groups, in line order; members refer to earlier groups by index, so shared groups are not copied.
    private var groups: [WitnessPolicy.Quorum.Group] = []
    private var quorum: (quorum: WitnessPolicy.Quorum, line: Int)?
    private var lastLine = 0

    /// A parser that checks keys with `crypto`.
    init(crypto: any TransparencyCrypto) {
        self.crypto = crypto
    }

    /// The items of a line: runs of characters between spaces and tabs.
    static func fields(of line: Substring) -> [Substring] {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// Reads line `number`.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` naming the line.
    mutating func read(_ line: Substring, number: Int) throws(TransparencyError) {
        self.lastLine = number
        guard !line.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            throw Self.error(number, "a control character other than tab")
        }
        let fields = Self.fields(of: line)
        guard let keyword = fields.first, !keyword.hasPrefix("#") else { return }
        let arguments = Array(fields.dropFirst())
        switch keyword {
        case "log": try self.readLog(arguments, number: number)
        case "witness": try self.readWitness(arguments, number: number)
        case "group": try self.readGroup(arguments, number: number)
        case "quorum": try self.readQuorum(arguments, number: number)
        default: throw Self.error(number, "unknown keyword `\(keyword)` (expected log, witness, group or quorum)")
        }
    }

    /// The policy read.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` when there was no quorum line.
    func finish() throws(TransparencyError) -> WitnessPolicy {
        guard let quorum else {
            throw Self.error(self.lastLine, "the policy ends without a `quorum` line")
        }
        return WitnessPolicy(
            logs: self.logs.map(\.log),
            witnesses: self.witnesses.map(\.witness),
            quorum: quorum.quorum
        )
    }

    private mutating func readLog(_ arguments: [Substring], number: Int) throws(TransparencyError) {
        guard (1...2).contains(arguments.count) else { throw Self.error(number, "expected `log <vkey> [<url>]`") }
        guard self.logs.count < WitnessPolicy.maximumLogs else {
            throw Self.error(number, "more than \(WitnessPolicy.maximumLogs) logs")
        }
        let verifier: NoteVerifier
        do {
            verifier = try NoteVerifier(verifierKey: String(arguments[0]), crypto: self.crypto)
        } catch {
            throw Self.error(number, error.message)
        }
        if let earlier = self.logs.first(where: { $0.log.verifier.publicKey == verifier.publicKey }) {
            throw Self.error(number, "the log's key is the key of the log on line \(earlier.line)")
        }
        self.logs.append(
            (WitnessPolicy.Log(verifier: verifier, url: arguments.dropFirst().first.map(String.init)), number)
        )
    }

    private mutating func readWitness(_ arguments: [Substring], number: Int) throws(TransparencyError) {
        guard (2...3).contains(arguments.count) else {
            throw Self.error(number, "expected `witness <name> <vkey> [<url>]`")
        }
        guard self.witnesses.count < WitnessPolicy.maximumWitnesses else {
            throw Self.error(number, "more than \(WitnessPolicy.maximumWitnesses) witnesses")
        }
        let name = try self.newName(arguments[0], number: number)
        let verifier: CosignatureVerifier
        do {
            verifier = try CosignatureVerifier(verifierKey: String(arguments[1]), crypto: self.crypto)
        } catch {
            throw Self.error(number, error.message)
        }
        if let earlier = self.witnesses.first(where: { $0.witness.verifier.publicKey == verifier.publicKey }) {
            throw Self.error(
                number,
                "the key of \(name) is the key of \(earlier.witness.name) (line \(earlier.line))"
            )
        }
        let url = arguments.count == 3 ? String(arguments[2]) : nil
        self.witnesses.append((WitnessPolicy.Witness(name: name, verifier: verifier, url: url), number))
        self.names[name] = (.witness(name), number)
    }

    private mutating func readGroup(_ arguments: [Substring], number: Int) throws(TransparencyError) {
        guard arguments.count >= 3 else {
            throw Self.error(number, "expected `group <name> all|any|<k> <name>...`")
        }
        guard self.groups.count < WitnessPolicy.maximumGroups else {
            throw Self.error(number, "more than \(WitnessPolicy.maximumGroups) groups")
        }
        let name = try self.newName(arguments[0], number: number)
        var members: [WitnessPolicy.Quorum.Member] = []
        var listed: Set<Substring> = []
        for member in arguments.dropFirst(2) {
            guard member != "none" else { throw Self.error(number, "none cannot be a member of a group") }
            guard let defined = self.names[String(member)] else {
                throw Self.error(number, "\(member) is not defined on an earlier line")
            }
            guard listed.insert(member).inserted else {
                throw Self.error(number, "\(member) is listed twice in the group \(name)")
            }
            members.append(defined.member)
        }
        let threshold: Int
        switch arguments[1] {
        case "all": threshold = members.count
        case "any": threshold = 1
        case let k:
            guard k.utf8.allSatisfy({ (0x30...0x39).contains($0) }), k.utf8.count <= 4, let value = Int(k),
                (1...members.count).contains(value)
            else {
                throw Self.error(
                    number,
                    "the group \(name) needs all, any or a k from 1 to \(members.count) (its members), not \(k)"
                )
            }
            threshold = value
        }
        self.names[name] = (.group(self.groups.count), number)
        self.groups.append(WitnessPolicy.Quorum.Group(name: name, threshold: threshold, members: members))
    }

    private mutating func readQuorum(_ arguments: [Substring], number: Int) throws(TransparencyError) {
        guard arguments.count == 1 else { throw Self.error(number, "expected `quorum <name>`") }
        if let earlier = self.quorum {
            throw Self.error(number, "a second quorum line (the first is line \(earlier.line))")
        }
        if arguments[0] == "none" {
            self.quorum = (.none, number)
            return
        }
        guard let defined = self.names[String(arguments[0])] else {
            throw Self.error(number, "the quorum names \(arguments[0]), which is not defined on an earlier line")
        }
        switch defined.member {
        case .witness(let witness): self.quorum = (.witness(witness), number)
        case .group(let index):
            self.quorum = (WitnessPolicy.Quorum(groups: Array(self.groups[...index]), root: .group(index)), number)
        }
    }

    /// `text` as the name of a new witness or group: not `none`, not defined before.
    private func newName(_ text: Substring, number: Int) throws(TransparencyError) -> String {
        let name = String(text)
        guard name != "none" else { throw Self.error(number, "none is predefined and cannot be redefined") }
        if let earlier = self.names[name] {
            throw Self.error(number, "the name \(name) is already defined on line \(earlier.line)")
        }
        return name
    }

    private static func error(_ number: Int, _ message: String) -> TransparencyError {
        TransparencyError(.invalidPolicy, "line \(number): \(message)")
    }
}

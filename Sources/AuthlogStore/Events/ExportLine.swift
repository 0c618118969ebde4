import AuthlogCore
import AuthlogPostgres

/// One line of the export format (docs/events.md, "Export format"), built from a sealed event's row as the
/// database returns it: `position`, the envelope's members (the optional ones only when set) with `owasp` after
/// `type` (``EventType/owaspName(outcome:reason:)``, left out when there is none), `data`, `schema_version`,
/// `recorded_at`, and `digest` and `leaf_hash` in lowercase hex.
///
/// The bytes are those PostgreSQL's `to_json` and `to_char` gave when the line was built in SQL
/// (`ExportLineOracleTests` holds the two to each other): strings escape `"`, `\`, `\b`, `\f`, `\n`, `\r` and
/// `\t` by name, other control characters as lowercase `\u00xx`, and nothing else; times are
/// `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Building it here rather than in SQL halves the database's share of an export:
/// the server sends the columns, not twenty calls to `to_json` per row (`authlog-bench export`).
enum ExportLine {
    /// The select list a line is built from, from the sealed view `authlog.events` called `e`, in the order
    /// ``make(from:)`` reads it.
    static let columns = """
        e.position, e.event_id, e.stream, e.stream_version, e.type, e.occurred_at, e.outcome, e.reason, \
        e.provider, e.user_id, e.session_id, e.client_id, host(e.ip), e.user_agent, e.request_id, e.data::text, \
        e.schema_version, e.recorded_at, e.digest, e.leaf_hash
        """

    /// The names ``columns`` come out as, in their order: what a select over a subquery of them lists.
    static let outputNames = """
        position, event_id, stream, stream_version, type, occurred_at, outcome, reason, provider, user_id, \
        session_id, client_id, host, user_agent, request_id, data, schema_version, recorded_at, digest, leaf_hash
        """

    /// The event's position and its line.
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's.
    static func make(from row: QueryRow) throws -> (position: Int64, json: String) {
        var line = JSONLineBytes(capacity: row.cells.reduce(320) { $0 + ($1?.utf8.count ?? 0) })
        let position = try Self.write(row, into: &line)
        return (position, line.text)
    }

    /// The lines of `rows`, each followed by a newline, in one run of bytes: a streamed export's page, with no
    /// string made per line.
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's.
    static func newlineDelimited(_ rows: some Collection<QueryRow>) throws -> [UInt8] {
        var lines = JSONLineBytes(
            capacity: rows.reduce(0) { total, row in
                row.cells.reduce(total + 320) { $0 + ($1?.utf8.count ?? 0) }
            }
        )
        for row in rows {
            _ = try Self.write(row, into: &lines)
            lines.raw("\n")
        }
        return lines.bytes
    }

    /// Appends the event's line to `line`; returns its position.
    private static func write(_ row: QueryRow, into line: inout JSONLineBytes) throws -> Int64 {
        let cells = row.cells
        guard cells.count == 20, let positionText = cells[0], let position = Int64(positionText) else {
            throw StoreError(.decoding, "an export row has no position")
        }
        func required(_ index: Int, _ name: String) throws -> String {
            guard let text = cells[index] else {
                throw StoreError(.decoding, "event at position \(position) has no \(name)")
            }
            return text
        }
        let typeText = try required(4, "type")
        let outcomeText = try required(6, "outcome")
        guard let outcome = Outcome(rawValue: outcomeText) else {
            throw StoreError(.decoding, "event at position \(position) has an invalid outcome")
        }
        line.raw("{\"position\":")
        line.raw(positionText)
        line.raw(",\"event_id\":\"")
        line.raw(try required(1, "event_id"))
        line.raw("\"")
        line.string(",\"stream\":", try required(2, "stream"))
        line.raw(",\"stream_version\":")
        line.raw(try required(3, "stream_version"))
        line.string(",\"type\":", typeText)
        if let name = EventType(rawValue: typeText)?.owaspName(outcome: outcome, reason: cells[7]) {
            line.string(",\"owasp\":", name)
        }
        try line.time(",\"occurred_at\":", try required(5, "occurred_at"), position: position)
        line.string(",\"outcome\":", outcomeText)
        for (index, member) in Self.optionalMembers {
            if let text = cells[index] { line.string(member, text) }
        }
        line.raw(",\"data\":")
        line.raw(try required(15, "data"))
        line.raw(",\"schema_version\":")
        line.raw(try required(16, "schema_version"))
        try line.time(",\"recorded_at\":", try required(17, "recorded_at"), position: position)
        try line.hex(",\"digest\":\"", try required(18, "digest"), position: position)
        try line.hex("\",\"leaf_hash\":\"", try required(19, "leaf_hash"), position: position)
        line.raw("\"}")
        return position
    }

    /// The optional members: their cell and their name, in the line's order.
    private static let optionalMembers = [
        (7, ",\"reason\":"), (8, ",\"provider\":"), (9, ",\"user_id\":"), (10, ",\"session_id\":"),
        (11, ",\"client_id\":"), (12, ",\"ip\":"), (13, ",\"user_agent\":"), (14, ",\"request_id\":"),
    ]
}

/// The bytes of one line of JSON as it is built, member by member.
private struct JSONLineBytes {
    private(set) var bytes: [UInt8] = []
    private static let hexDigits = Array("0123456789abcdef".utf8)

    init(capacity: Int) { self.bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: self.bytes, as: UTF8.self) }

    /// Appends the text as it is: punctuation, numbers, ids and JSON that is already JSON.
    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { self.bytes.append(contentsOf: $0) }
    }

    /// Appends `prefix`, then `text` as a JSON string escaped as PostgreSQL's `escape_json` escapes it:
    /// `"`, `\`, `\b`, `\f`, `\n`, `\r` and `\t` by name, other control characters as `\u00xx`.
    /// Not the writer of ``JSONValue/canonicalText``: the canonical form spells backspace and form feed `\u0008`
    /// and `\u000c`, and it is hashed into every digest, so neither spelling can move to the other.
    mutating func string(_ prefix: String, _ text: String) {
        self.raw(prefix)
        self.bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plainFrom = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom..<index]))
                plainFrom = index + 1
                self.escape(byte)
            }
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom...]))
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        self.bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x08: self.bytes.append(UInt8(ascii: "b"))
        case 0x0C: self.bytes.append(UInt8(ascii: "f"))
        case 0x0A: self.bytes.append(UInt8(ascii: "n"))
        case 0x0D: self.bytes.append(UInt8(ascii: "r"))
        case 0x09: self.bytes.append(UInt8(ascii: "t"))
        case 0x22, 0x5C: self.bytes.append(byte)
        default:
            self.bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            self.bytes.append(Self.hexDigits[Int(byte >> 4)])
            self.bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Appends `prefix`, then a `timestamptz` cell as the export writes it: PostgreSQL's ISO output in UTC (the
    /// connection's time zone), `YYYY-MM-DD HH:MM:SS[.f]+00`, as the string `"YYYY-MM-DDTHH:MM:SS.ffffffZ"`.
    /// Rewritten as text, not parsed, so that a year past 9999 (an ingested time with a negative offset can
    /// reach 10000) reads as `to_char` wrote it.
    mutating func time(_ prefix: String, _ text: String, position: Int64) throws {
        var text = text
        let written: Bool = text.withUTF8 { utf8 in
            guard let space = utf8.firstIndex(of: UInt8(ascii: " ")), utf8.count >= space + 12,
                utf8[utf8.count - 3] == UInt8(ascii: "+"), utf8[utf8.count - 2] == UInt8(ascii: "0"),
                utf8[utf8.count - 1] == UInt8(ascii: "0")
            else { return false }
            let clockLength = utf8.count - 3 - (space + 1)
            let digits = clockLength - 9
            guard clockLength == 8 || ((1...6).contains(digits) && utf8[space + 9] == UInt8(ascii: ".")) else {
                return false
            }
            self.raw(prefix)
            self.bytes.append(UInt8(ascii: "\""))
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<space]))
            self.bytes.append(UInt8(ascii: "T"))
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[(space + 1)..<(space + 9)]))
            self.bytes.append(UInt8(ascii: "."))
            if digits > 0 {
                self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[(space + 10)..<(space + 10 + digits)]))
            }
            self.bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 6 - max(digits, 0)))
            self.bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
            return true
        }
        guard written else {
            throw StoreError(.decoding, "event at position \(position) has a time that is not in UTC ISO form")
        }
    }

    /// Appends `prefix`, then a `bytea` cell (`\x` and lowercase hex, PostgreSQL's default output) without
    /// its `\x`.
    mutating func hex(_ prefix: String, _ text: String, position: Int64) throws {
        var text = text
        let written: Bool = text.withUTF8 { utf8 in
            guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return false }
            self.raw(prefix)
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[2...]))
            return true
        }
        guard written else {
            throw StoreError(.decoding, "event at position \(position) has a hash that is not in hex output form")
        }
    }
}

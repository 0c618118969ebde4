import AuthlogCore
import Foundation

/// The first pass of `authlog append` over the spool: every line is parsed and checked, so nothing is stored
/// when any line is bad, and memory holds one line at a time. Errors are kept for the first ``shownErrors``
/// bad lines and counted for all of them.
struct IngestCheck {
    /// The longest line read: four times the data limit leaves room for the envelope and for escapes.
    static let lineLimit = 4 * EventEnvelope.ingestDataLimit
    /// How many bad lines are reported by number; the rest are only counted.
    static let shownErrors = 100

    /// One line, parsed.
    enum Parsed {
        case blank
        case event(line: Int, EventEnvelope)
        case bad(String)
    }

    /// Events found.
    var events = 0
    /// The first ``shownErrors`` errors, each `line N: …`.
    var errors: [String] = []
    /// Bad lines in all.
    var badLines = 0

    /// Reads `spool` from where it stands to its end, checking each line.
    /// - Throws: ``JSONLineReader/Failure`` when reading the spool fails.
    static func run(over spool: IngestSpool) throws(JSONLineReader.Failure) -> IngestCheck {
        var check = IngestCheck()
        var reader = JSONLineReader(descriptor: spool.descriptor, limit: Self.lineLimit)
        while let line = try reader.next() {
            switch Self.parse(line) {
            case .blank: continue
            case .event: check.events += 1
            case .bad(let error):
                check.badLines += 1
                if check.errors.count < Self.shownErrors { check.errors.append(error) }
            }
        }
        return check
    }

    /// The event of `line`, or what is wrong with it (`line N: …`).
    static func parse(_ line: JSONLineReader.Line) -> Parsed {
        switch line {
        case .overlong(let number, let length):
            return .bad("line \(number): is \(length) bytes; a line may have at most \(Self.lineLimit)")
        case .text(let number, let bytes):
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
            do {
                let json = try JSONParser().parse(bytes)
                return .event(line: number, try EventEnvelope(ingesting: json))
            } catch {
                return .bad("line \(number): \(error)")
            }
        }
    }
}

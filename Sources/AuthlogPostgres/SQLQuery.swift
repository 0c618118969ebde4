/// A SQL statement whose interpolated values become `$n` parameters, never SQL text.
///
/// ```swift
/// let query: SQLQuery = "SELECT position FROM authlog.events WHERE event_id = \(eventID)"
/// ```
/// Text that must become SQL (identifiers chosen by the program) needs the loud spellings
/// ``init(unsafeSQL:)`` or `\(unescaped:)`. Printing a query shows its parameters as `****`.
public struct SQLQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL text with `$1`, `$2`, … placeholders.
    public private(set) var sql: String
    /// The parameters in text form (`nil` is SQL NULL).
    public private(set) var binds: [String?]

    /// Creates a query from a literal written in the source.
    public init(stringLiteral value: StaticString) {
        self.sql = value.description
        self.binds = []
    }

    /// Creates a query from text built at run time; the caller vouches that it holds no untrusted input.
    public init(unsafeSQL sql: String) {
        self.sql = sql
        self.binds = []
    }

    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.binds = stringInterpolation.binds
    }

    /// Adds a parameter and returns its placeholder (`$n`), for statements built in a loop.
    public mutating func bind(_ value: (some SQLBindable)?) -> String {
        self.binds.append(value?.sqlText)
        return "$\(self.binds.count)"
    }

    /// Appends SQL text chosen by the program; never pass input through here.
    public mutating func append(unescaped sql: String) {
        self.sql += sql
    }

    public var description: String {
        "\(self.sql) [\(self.binds.map { _ in "****" }.joined(separator: ", "))]"
    }

    /// Collects literal text and parameters.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds: [String?] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            self.sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            self.sql += literal.description
        }

        /// Binds `value` as the next parameter.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            self.binds.append(value.sqlText)
            self.sql += "$\(self.binds.count)"
        }

        /// Binds `value` as the next parameter, `nil` as NULL.
        public mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            self.binds.append(value?.sqlText)
            self.sql += "$\(self.binds.count)"
        }

        /// Inserts program-chosen SQL text as it is.
        public mutating func appendInterpolation(unescaped sql: String) {
            self.sql += sql
        }
    }
}

extension StaticString {
    fileprivate var description: String {
        self.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}

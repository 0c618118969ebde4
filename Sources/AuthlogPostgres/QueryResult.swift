public import AuthlogCore
public import Foundation

/// The rows a statement returned, already copied out of libpq, in text form.
public struct QueryResult: Sendable {
    /// Column names in order.
    public let columns: [String]
    /// The rows; each cell is the column's text form or `nil` for NULL.
    public let rows: [QueryRow]
    /// The number of rows the statement inserted, updated or deleted (`PQcmdTuples`).
    public let affectedRows: Int

    init(columns: [String], cells: [[String?]], affectedRows: Int) {
        self.columns = columns
        let index = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.rows = cells.map { QueryRow(cells: $0, columnIndex: index) }
        self.affectedRows = affectedRows
    }

    /// The only row, or `nil` when there is none.
    public var first: QueryRow? { self.rows.first }
}

/// One row of a ``QueryResult``.
public struct QueryRow: Sendable {
    /// The cells in column order.
    public let cells: [String?]
    let columnIndex: [String: Int]

    /// Decodes the cell at `index`.
    /// - Throws: ``StoreError`` `.decoding` when the cell is NULL for a non-optional type or has the wrong form.
    public func decode<T: SQLDecodable>(_ type: T.Type, at index: Int) throws -> T {
        guard index < self.cells.count else {
            throw StoreError(.decoding, "no column \(index) in the row")
        }
        return try T.decode(sqlText: self.cells[index], column: String(index))
    }

    /// Decodes the cell of the column called `name`.
    /// - Throws: ``StoreError`` `.decoding` when there is no such column or the cell does not decode.
    public func decode<T: SQLDecodable>(_ type: T.Type, column name: String) throws -> T {
        guard let index = self.columnIndex[name] else {
            throw StoreError(.decoding, "no column \(name) in the row")
        }
        return try T.decode(sqlText: self.cells[index], column: name)
    }
}

/// A Swift type that can be read from a cell's text form.
public protocol SQLDecodable: Sendable {
    /// Decodes the cell text (`nil` for NULL).
    /// - Throws: ``StoreError`` `.decoding` when the text does not fit.
    static func decode(sqlText: String?, column: String) throws -> Self
}

/// A type with a non-NULL text form.
public protocol SQLTextDecodable: SQLDecodable {
    /// Parses PostgreSQL's text output form.
    init?(sqlTextValue: String)
}

extension SQLTextDecodable {
    public static func decode(sqlText: String?, column: String) throws -> Self {
        guard let sqlText else { throw StoreError(.decoding, "column \(column) is NULL") }
        guard let value = Self(sqlTextValue: sqlText) else {
            throw StoreError(.decoding, "column \(column) is not a \(Self.self)")
        }
        return value
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public static func decode(sqlText: String?, column: String) throws -> Wrapped? {
        guard let sqlText else { return nil }
        return try Wrapped.decode(sqlText: sqlText, column: column)
    }
}

extension String: SQLTextDecodable {
    public init?(sqlTextValue: String) { self = sqlTextValue }
}

extension Int: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(sqlTextValue, radix: 10) }
}

extension Int64: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(sqlTextValue, radix: 10) }
}

extension Int32: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(sqlTextValue, radix: 10) }
}

extension Int16: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(sqlTextValue, radix: 10) }
}

extension Double: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(sqlTextValue) }
}

extension Bool: SQLTextDecodable {
    public init?(sqlTextValue: String) {
        switch sqlTextValue {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension UUID: SQLTextDecodable {
    public init?(sqlTextValue: String) { self.init(canonical: sqlTextValue) }
}

extension Timestamp: SQLTextDecodable {
    /// Parses `timestamptz` output in the ISO DateStyle (`2026-11-21 13:06:14.123456+00`).
    public init?(sqlTextValue: String) { self.init(iso8601: sqlTextValue) }
}

extension IPAddress: SQLTextDecodable {
    /// Parses `inet` output; a host prefix (`/32`, `/128`) is accepted and dropped.
    public init?(sqlTextValue: String) {
        let host = sqlTextValue.split(separator: "/", maxSplits: 1).first.map(String.init) ?? sqlTextValue
        self.init(host)
    }
}

extension JSONValue: SQLTextDecodable {
    public init?(sqlTextValue: String) {
        guard let value = try? JSONParser(maximumDepth: 512).parse(sqlTextValue) else { return nil }
        self = value
    }
}

extension ByteaValue: SQLTextDecodable {
    /// Parses `bytea` output in the hex format (`\x0a1b…`).
    public init?(sqlTextValue: String) {
        guard sqlTextValue.hasPrefix("\\x"), let bytes = Hex.decode(String(sqlTextValue.dropFirst(2))) else {
            return nil
        }
        self.init(bytes)
    }
}

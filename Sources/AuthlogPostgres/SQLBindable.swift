public import AuthlogCore
public import Foundation

/// A Swift value that can be sent as a text-format query parameter.
public protocol SQLBindable: Sendable {
    /// The value as PostgreSQL's text input form.
    var sqlText: String { get }
}

extension String: SQLBindable {
    public var sqlText: String { self }
}

extension Int: SQLBindable {
    public var sqlText: String { String(self) }
}

extension Int64: SQLBindable {
    public var sqlText: String { String(self) }
}

extension Int32: SQLBindable {
    public var sqlText: String { String(self) }
}

extension Int16: SQLBindable {
    public var sqlText: String { String(self) }
}

extension Bool: SQLBindable {
    public var sqlText: String { self ? "t" : "f" }
}

extension Double: SQLBindable {
    public var sqlText: String { String(self) }
}

extension UUID: SQLBindable {
    public var sqlText: String { self.lowercased }
}

extension Timestamp: SQLBindable {
    public var sqlText: String { self.description }
}

extension IPAddress: SQLBindable {
    public var sqlText: String { self.description }
}

extension JSONValue: SQLBindable {
    public var sqlText: String { self.canonicalText }
}

/// Bytes sent as a `bytea` parameter (`\x` hex form).
public struct ByteaValue: SQLBindable {
    /// The bytes.
    public var bytes: [UInt8]

    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var sqlText: String { "\\x" + Hex.encode(self.bytes) }
}

/// A one-dimensional PostgreSQL array literal (`{"a","b"}`), for `= ANY($1::text[])`.
public struct ArrayLiteral: SQLBindable {
    /// The elements, in text form; `nil` is NULL.
    public var elements: [String?]

    /// Creates the literal from elements' text forms.
    public init(_ elements: [String?]) { self.elements = elements }

    /// Creates the literal from bindable values.
    public init(_ values: [some SQLBindable]) { self.elements = values.map(\.sqlText) }

    public var sqlText: String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(self.elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (index, element) in self.elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

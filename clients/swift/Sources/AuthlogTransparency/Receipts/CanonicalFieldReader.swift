import Foundation

/// Reads the fields of canonical event bytes in order (``CanonicalEvent``): a presence byte, then a 4-byte
/// big-endian length and that many bytes, each length checked against what remains before anything is copied.
struct CanonicalFieldReader {
    private var rest: ArraySlice<UInt8>

    /// A reader of `bytes` (after the tag).
    init(_ bytes: ArraySlice<UInt8>) {
        self.rest = bytes
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { self.rest.isEmpty }

    /// The bytes of the field `name`, or nil when it is absent.
    mutating func optionalField(_ name: String) throws(CanonicalEvent.Failure) -> [UInt8]? {
        guard let presence = self.rest.popFirst() else { throw .malformed("the bytes end before the \(name)") }
        switch presence {
        case 0: return nil
        case 1: break
        default: throw .malformed("the \(name)'s presence byte is \(presence), not 0 or 1")
        }
        guard self.rest.count >= 4 else { throw .malformed("the bytes end inside the \(name)'s length") }
        let length = self.rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        self.rest = self.rest.dropFirst(4)
        guard length <= self.rest.count else {
            throw .malformed("the \(name)'s length \(length) runs past the end of the bytes")
        }
        defer { self.rest = self.rest.dropFirst(length) }
        return Array(self.rest.prefix(length))
    }

    /// The UTF-8 text of the field `name`, or nil when it is absent.
    mutating func optionalText(_ name: String) throws(CanonicalEvent.Failure) -> String? {
        guard let bytes = try self.optionalField(name) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { throw .malformed("the \(name) is not UTF-8 text") }
        return text
    }

    /// The UTF-8 text of the field `name`, which must be present.
    mutating func text(_ name: String) throws(CanonicalEvent.Failure) -> String {
        guard let text = try self.optionalText(name) else { throw .malformed("the \(name) is absent") }
        return text
    }

    /// The decimal integer of the field `name` (written as Swift writes an `Int64`), or nil when it is absent.
    mutating func optionalDecimal(_ name: String) throws(CanonicalEvent.Failure) -> Int64? {
        guard let text = try self.optionalText(name) else { return nil }
        guard text.utf8.count <= 20, text.allSatisfy({ $0.isASCII }), let value = Int64(text), String(value) == text
        else { throw .malformed("the \(name) is not a decimal integer") }
        return value
    }

    /// The decimal integer of the field `name`, which must be present.
    mutating func decimal(_ name: String) throws(CanonicalEvent.Failure) -> Int64 {
        guard let value = try self.optionalDecimal(name) else { throw .malformed("the \(name) is absent") }
        return value
    }

    /// The lowercase UUID text of the field `name`, or nil when it is absent.
    mutating func optionalUUID(_ name: String) throws(CanonicalEvent.Failure) -> String? {
        guard let text = try self.optionalText(name) else { return nil }
        guard text.utf8.count == 36, UUID(uuidString: text) != nil, text == text.lowercased() else {
            throw .malformed("the \(name) is not a lowercase UUID")
        }
        return text
    }

    /// The lowercase UUID text of the field `name`, which must be present.
    mutating func uuid(_ name: String) throws(CanonicalEvent.Failure) -> String {
        guard let text = try self.optionalUUID(name) else { throw .malformed("the \(name) is absent") }
        return text
    }
}

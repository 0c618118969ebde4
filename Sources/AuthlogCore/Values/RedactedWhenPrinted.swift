/// A type that holds secrets (tokens, codes, keys, client secrets): printing it, interpolating it into a
/// string, `String(reflecting:)` and `dump` show its name and `<redacted>`, never a member, so no log line
/// or error message can carry a secret by accident.
public protocol RedactedWhenPrinted: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension RedactedWhenPrinted {
    /// `TypeName(<redacted>)`.
    public var description: String { "\(Self.self)(<redacted>)" }
    /// The same as ``description``.
    public var debugDescription: String { self.description }
    /// A mirror without children, so `dump` and reflection show nothing inside.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

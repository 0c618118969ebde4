public import AuthlogCore

/// Hides the secrets of a configuration before it is printed: keys, client secrets, private keys (`****`) and
/// the password in a database URL or conninfo.
public enum ConfigurationMasking {
    /// The members that hold a secret, by name, wherever they are.
    static let secretMembers: Set<String> = [
        "data_key", "subject_key", "event_key", "admin_key", "private_key", "client_secret", "secret",
        "previous_data_keys",
    ]
    /// The members that hold a database URL or conninfo, whose password is hidden.
    static let databaseMembers: Set<String> = ["database_url", "read_database_url"]

    /// `value`, found at `path`, with its secrets replaced by `****`.
    public static func masked(_ value: JSONValue, at path: MemberPath) -> JSONValue {
        let name = path.lastMember ?? ""
        switch value {
        case .string(let text) where Self.secretMembers.contains(name):
            return .string(text.isEmpty ? "" : "****")
        case .string(let text) where Self.databaseMembers.contains(name):
            return .string(Self.maskingPassword(text))
        case .object(let members):
            return .object(members.map { ($0.name, Self.masked($0.value, at: path.appending(.member($0.name)))) })
        case .array(let elements) where Self.secretMembers.contains(name):
            return .array(elements.map { Self.masked($0, at: path) })
        case .array(let elements):
            return .array(elements.enumerated().map { Self.masked($1, at: path.appending(.index($0))) })
        default:
            return value
        }
    }

    /// `text` with the password of a URL (`postgres://user:secret@host/db`) or of a conninfo or URL parameter
    /// (`password=secret`) replaced by `****`.
    public static func maskingPassword(_ text: String) -> String {
        var text = text
        if let scheme = text.range(of: "://"),
            let at = text[scheme.upperBound...].firstIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        {
            text.replaceSubrange(text.index(after: colon)..<at, with: "****")
        }
        return text.replacing(#/password=[^\s&]*/#, with: "password=****")
    }
}

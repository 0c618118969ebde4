import AuthlogCore

/// The configuration members set by the environment, laid over the file's document before it is decoded.
///
/// The rule: `AUTHLOG_` followed by the member's path, upper-cased, its segments joined by a double underscore
/// (`AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BURST` is `rate_limits.per_address.signin.burst`). Only names
/// whose first segment is a top-level member are configuration (`AUTHLOG_TEST_DATABASE_URL` is not); an empty
/// value is no value. A text member takes the value as written; any other reads it as JSON. The secret
/// variables of old (`AUTHLOG_EVENT_KEY`, `AUTHLOG_<NAME>_CLIENT_SECRET`, …) apply after, as before.
struct ConfigurationEnvironment {
    /// The document with every member the environment sets.
    private(set) var document: JSONValue
    /// The members set, by path, with the variable that set each.
    private(set) var variables: [MemberPath: String] = [:]
    /// The values to read by the member's type (see ``JSONValue/decodeStrictly(_:textOverrides:)``).
    private(set) var textOverrides: [MemberPath: String] = [:]

    /// Lays `environment` over `document` (the file's, or an empty object).
    /// - Throws: ``ServerConfiguration/Invalid`` for a variable that cannot be laid over the document.
    init(document: JSONValue, environment: [String: String]) throws(ServerConfiguration.Invalid) {
        self.document = document
        let topLevel = Set(JSONValue.memberNames(of: ServerConfiguration.self))
        let prefix = "AUTHLOG_"
        var generic: [(name: String, path: [String], value: String)] = []
        for (name, value) in environment where name.hasPrefix(prefix) && !value.isEmpty {
            let path = name.dropFirst(prefix.count).components(separatedBy: "__").map { $0.lowercased() }
            guard let first = path.first, topLevel.contains(first) else { continue }
            guard !path.contains(where: \.isEmpty) else {
                throw ServerConfiguration.Invalid(
                    description: "\(name) is not a configuration path: its segments are joined by one double underscore"
                )
            }
            generic.append((name, path, value))
        }
        // Shallow paths first, so that a deeper variable sets a member inside what a shallower one gave.
        for entry in generic.sorted(by: { ($0.path.count, $0.name) < ($1.path.count, $1.name) }) {
            let path = self.indexed(MemberPath(members: entry.path))
            try self.set(.string(entry.value), at: path, by: entry.name)
            self.textOverrides[path] = entry.value
        }
        try self.applySecretVariables(environment)
    }

    /// `path` with each segment that names a list's element by its number (`sinks.0.secret`) made an index
    /// (`sinks[0].secret`), where the document has a list there.
    private func indexed(_ path: MemberPath) -> MemberPath {
        var node: JSONValue? = self.document
        var segments: [MemberPath.Segment] = []
        for segment in path.segments {
            if case .member(let name) = segment, case .array(let elements)? = node, let index = Int(name),
                elements.indices.contains(index)
            {
                segments.append(.index(index))
                node = elements[index]
            } else {
                segments.append(segment)
                if case .member(let name) = segment { node = node?[name] } else { node = nil }
            }
        }
        return MemberPath(segments)
    }

    /// The secret variables that predate the rule, each setting one member when its section is configured.
    private mutating func applySecretVariables(_ environment: [String: String]) throws(ServerConfiguration.Invalid) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let key = value("AUTHLOG_EVENT_KEY") {
            try self.set(.string(key), at: MemberPath(members: ["log", "event_key"]), by: "AUTHLOG_EVENT_KEY")
        }
        let providers: [(variable: String, provider: String, member: String)] = [
            ("AUTHLOG_KAKAO_ADMIN_KEY", "kakao", "admin_key"),
            ("AUTHLOG_APPLE_PRIVATE_KEY", "apple", "private_key"),
            ("AUTHLOG_GITHUB_CLIENT_SECRET", "github", "client_secret"),
            ("AUTHLOG_GITLAB_CLIENT_SECRET", "gitlab", "client_secret"),
            ("AUTHLOG_KAKAO_CLIENT_SECRET", "kakao", "client_secret"),
        ]
        for entry in providers where self.document["providers"]?[entry.provider]?.isObject == true {
            if let secret = value(entry.variable) {
                try self.set(
                    .string(secret),
                    at: MemberPath(members: ["providers", entry.provider, entry.member]),
                    by: entry.variable
                )
            }
        }
        if case .object(let members)? = self.document["providers"]?["oidc"] {
            for name in members.map(\.name).sorted()
            where members.first(where: { $0.name == name })?.value.isObject == true {
                let variable = "AUTHLOG_\(ServerConfiguration.environmentName(name))_CLIENT_SECRET"
                if let secret = value(variable) {
                    try self.set(
                        .string(secret),
                        at: MemberPath(members: ["providers", "oidc", name, "client_secret"]),
                        by: variable
                    )
                }
            }
        }
        if case .array(let clients)? = self.document["introspection_clients"] {
            for (index, client) in clients.enumerated() {
                guard client.isObject, let id = client["id"]?.stringValue else { continue }
                let variable = "AUTHLOG_CLIENT_SECRET_\(ServerConfiguration.environmentName(id))"
                if let secret = value(variable) {
                    let path = MemberPath([.member("introspection_clients"), .index(index), .member("secret")])
                    try self.set(.string(secret), at: path, by: variable)
                }
            }
        }
    }

    /// Sets `value` at `path`, making the objects on the way; a member another variable set as text becomes
    /// the JSON object it spells.
    private mutating func set(
        _ value: JSONValue,
        at path: MemberPath,
        by variable: String
    ) throws(ServerConfiguration.Invalid) {
        for depth in 1..<max(path.segments.count, 1) {
            let prefix = MemberPath(Array(path.segments.prefix(depth)))
            guard let text = self.textOverrides[prefix] else { continue }
            guard let object = try? JSONParser().parse(text), object.isObject else {
                throw ServerConfiguration.Invalid(
                    description:
                        "\(variable) sets a member of \(prefix), which \(self.variables[prefix] ?? "another variable") does not set to a JSON object"
                )
            }
            self.textOverrides[prefix] = nil
            self.document = try Self.setting(object, at: prefix.segments[...], in: self.document, variable: variable)
        }
        self.document = try Self.setting(value, at: path.segments[...], in: self.document, variable: variable)
        self.textOverrides[path] = nil
        self.variables[path] = variable
    }

    private static func setting(
        _ value: JSONValue,
        at path: ArraySlice<MemberPath.Segment>,
        in node: JSONValue,
        variable: String
    ) throws(ServerConfiguration.Invalid) -> JSONValue {
        guard let segment = path.first else { return value }
        let rest = path.dropFirst()
        switch (segment, node) {
        case (.member(let name), .object(var members)):
            if let index = members.firstIndex(where: { $0.name == name }) {
                members[index].value = try Self.setting(value, at: rest, in: members[index].value, variable: variable)
            } else {
                members.append((name, try Self.setting(value, at: rest, in: .emptyObject, variable: variable)))
            }
            return .object(members)
        case (.index(let index), .array(var elements)) where elements.indices.contains(index):
            elements[index] = try Self.setting(value, at: rest, in: elements[index], variable: variable)
            return .array(elements)
        case (.member(let name), .array(let elements)):
            // ``indexed(_:)`` made every element the list has an index: this one it does not have.
            throw ServerConfiguration.Invalid(
                description: "\(variable) names element \(name) of a list that has \(elements.count) elements"
            )
        default:
            throw ServerConfiguration.Invalid(
                description: "\(variable) sets a member inside a value of the configuration that is not an object"
            )
        }
    }
}

public import AuthlogCore

/// A configuration as ``ServerConfiguration/load(path:environment:)`` read it, with where each member came from.
public struct LoadedConfiguration: Sendable {
    /// The configuration: the file with the environment laid over it.
    public var configuration: ServerConfiguration
    /// The file's document as written (an empty object without a file).
    let fileDocument: JSONValue
    /// The members the environment set, with the variable that set each.
    let variables: [MemberPath: String]

    /// Where the value at `path` came from: the variable that set it or one of its ancestors, else the file
    /// when it holds the value, else the default.
    public func source(of path: MemberPath) -> ConfigurationSource {
        let variable = self.variables.filter { path.hasPrefix($0.key) }.max {
            $0.key.segments.count < $1.key.segments.count
        }
        if let variable { return .environment(variable.value) }
        var node = self.fileDocument
        for segment in path.segments {
            switch (segment, node) {
            case (.member(let name), .object):
                guard let next = node[name] else { return .default }
                node = next
            case (.index(let index), .array(let elements)) where elements.indices.contains(index):
                node = elements[index]
            default:
                // Inside a list or text the file set as a whole.
                return .file
            }
        }
        return .file
    }

    /// One member of the effective configuration, as `authlog config check` prints it.
    public struct Member: Sendable, Equatable {
        /// Its path, such as `rate_limits.per_address.signin.burst`.
        public let path: MemberPath
        /// Its value as JSON, with secrets masked (``ConfigurationMasking``).
        public let value: String
        /// Where it came from.
        public let source: ConfigurationSource
    }

    /// Every member that is set or has a default, sorted by path: objects and lists of objects are their
    /// members, other lists one member each.
    public var effectiveMembers: [Member] {
        var values: [MemberPath: JSONValue] = [:]
        for (path, value) in ConfigurationDefaults.members(for: self.configuration) { values[path] = value }
        let encoded = (try? JSONValue(encoding: self.configuration)) ?? .emptyObject
        for (path, value) in Self.leaves(of: encoded, at: MemberPath()) { values[path] = value }
        return values.map { path, value in
            Member(
                path: path,
                value: ConfigurationMasking.masked(value, at: path).canonicalText,
                source: self.source(of: path)
            )
        }
        .sorted { Self.precedes($0.path, $1.path) }
    }

    /// Whether `a` sorts before `b`: by member name, elements by index.
    private static func precedes(_ a: MemberPath, _ b: MemberPath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) where x != y {
            switch (x, y) {
            case (.member(let x), .member(let y)): return x < y
            case (.index(let x), .index(let y)): return x < y
            case (.index, .member): return true
            case (.member, .index): return false
            }
        }
        return a.segments.count < b.segments.count
    }

    /// The values below `node`: each member of an object in turn, each element of a list of objects in turn,
    /// anything else whole.
    private static func leaves(of node: JSONValue, at path: MemberPath) -> [(MemberPath, JSONValue)] {
        switch node {
        case .object(let members):
            return members.flatMap { Self.leaves(of: $0.value, at: path.appending(.member($0.name))) }
        case .array(let elements) where !elements.isEmpty && elements.allSatisfy(\.isObject):
            return elements.enumerated().flatMap { Self.leaves(of: $1, at: path.appending(.index($0))) }
        default:
            return [(path, node)]
        }
    }
}

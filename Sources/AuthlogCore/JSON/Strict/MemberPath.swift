/// Where a value sits in a JSON document: member names and array indices from the root, written
/// `rate_limits.per_address.signin.burst` or `introspection_clients[0].secret`.
public struct MemberPath: Hashable, Sendable, CustomStringConvertible {
    /// One step down: an object's member or an array's element.
    public enum Segment: Hashable, Sendable {
        /// The member of an object called by this (snake_case) name.
        case member(String)
        /// The element of an array at this index.
        case index(Int)
    }

    /// The steps from the root.
    public var segments: [Segment]

    /// The path made of `segments`; no segment is the document itself.
    public init(_ segments: [Segment] = []) {
        self.segments = segments
    }

    /// The path of the member called `names…` below the root, one name per level.
    public init(members names: [String]) {
        self.segments = names.map(Segment.member)
    }

    /// Whether this is the document itself.
    public var isRoot: Bool { self.segments.isEmpty }

    /// This path with one more step.
    public func appending(_ segment: Segment) -> MemberPath {
        MemberPath(self.segments + [segment])
    }

    /// The path one step up (the root's parent is the root).
    public var parent: MemberPath { MemberPath(Array(self.segments.dropLast())) }

    /// The last member name, if the last step is a member.
    public var lastMember: String? {
        guard case .member(let name) = self.segments.last else { return nil }
        return name
    }

    /// Whether `other` is this path or one of its ancestors.
    public func hasPrefix(_ other: MemberPath) -> Bool {
        self.segments.starts(with: other.segments)
    }

    public var description: String {
        var text = ""
        for segment in self.segments {
            switch segment {
            case .member(let name): text += text.isEmpty ? name : "." + name
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

/// The coding key of one step of a ``MemberPath``, for the `codingPath` the `Decodable` protocols ask for.
struct MemberPathKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ segment: MemberPath.Segment) {
        switch segment {
        case .member(let name): (self.stringValue, self.intValue) = (name, nil)
        case .index(let index): (self.stringValue, self.intValue) = (String(index), index)
        }
    }

    init?(stringValue: String) { (self.stringValue, self.intValue) = (stringValue, nil) }
    init?(intValue: Int) { (self.stringValue, self.intValue) = (String(intValue), intValue) }
}

extension MemberPath {
    /// The path as coding keys.
    var codingKeys: [any CodingKey] { self.segments.map(MemberPathKey.init) }

    /// The path a `DecodingError` names: integer keys are indices, other keys member names in snake_case.
    init(codingPath: [any CodingKey]) {
        self.init(
            codingPath.map { key in
                if let index = key.intValue, key.stringValue == String(index) { return .index(index) }
                return .member(snakeCase(fromCamelCase: key.stringValue))
            }
        )
    }
}

/// Why a document does not decode strictly (``JSONValue/decodeStrictly(_:textOverrides:)``), in plain words:
/// no Swift type names.
public struct StrictDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong at ``path``.
    public enum Problem: Sendable, Equatable {
        /// The member is not one the type reads; `suggestion` is the nearest member name it does read, when
        /// one is close.
        case unknownMember(suggestion: String?)
        /// The value has the wrong shape: `expected` and `found` are plain words (`a whole number`,
        /// `text "8080x"`).
        case wrongType(expected: String, found: String)
        /// A required member is absent; `expected` says what it must be.
        case missing(expected: String)
        /// The type refused the value for a reason of its own.
        case invalid(String)
    }

    /// Where the problem is.
    public let path: MemberPath
    /// What it is.
    public let problem: Problem

    /// Creates the error.
    public init(path: MemberPath, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// The path as the message names it (`the document` for the root).
    var subject: String { self.path.isRoot ? "the document" : self.path.description }

    public var description: String {
        switch self.problem {
        case .unknownMember(let suggestion):
            return "unknown key \(self.subject)" + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        case .wrongType(let expected, let found):
            return "\(self.subject) must be \(expected), got \(found)"
        case .missing(let expected):
            return "\(self.subject) is missing; it must be \(expected)"
        case .invalid(let reason):
            return "\(self.subject): \(reason)"
        }
    }
}

import AuthlogCore
public import AuthlogStore
import Foundation

extension ServerConfiguration {
    /// A configuration problem, named for the operator in one sentence.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String

        /// Creates the error.
        public init(description: String) { self.description = description }
    }

    /// Reads the configuration as `serve` and every other command does: the JSON file at `path` (none: every
    /// default), the environment laid over it (``ConfigurationEnvironment`` states the rule), decoded
    /// strictly: an unknown key, a value of the wrong type or a missing required member is refused.
    /// - Parameters:
    ///   - path: The configuration file, if any.
    ///   - environment: The process environment.
    /// - Returns: The configuration, with where each member came from.
    /// - Throws: ``Invalid`` naming the problem, its key and where it was set.
    public static func load(path: String?, environment: [String: String]) throws(Invalid) -> LoadedConfiguration {
        let fileDocument = try path.map(Self.readDocument) ?? .emptyObject
        let overlay = try ConfigurationEnvironment(document: fileDocument, environment: environment)
        let configuration: ServerConfiguration
        do throws(StrictDecodingError) {
            configuration = try overlay.document.decodeStrictly(
                ServerConfiguration.self,
                textOverrides: overlay.textOverrides
            )
        } catch {
            throw Invalid(description: Self.message(for: error, file: path, variables: overlay.variables))
        }
        return LoadedConfiguration(
            configuration: configuration,
            fileDocument: fileDocument,
            variables: overlay.variables
        )
    }

    /// The JSON document of the file at `path`.
    private static func readDocument(_ path: String) throws(Invalid) -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "cannot read the configuration file \(path)")
        }
        do {
            return try JSONParser().parse(Array(data))
        } catch {
            throw Invalid(description: "the configuration file \(path) is not valid JSON: \(error)")
        }
    }

    /// `error` as one sentence naming where the bad value was set: the file or a variable.
    private static func message(
        for error: StrictDecodingError,
        file: String?,
        variables: [MemberPath: String]
    ) -> String {
        let variable = variables.filter { error.path.hasPrefix($0.key) }.max {
            $0.key.segments.count < $1.key.segments.count
        }?.value
        let key = error.path.isRoot ? "the configuration" : error.path.description
        switch error.problem {
        case .unknownMember(let suggestion):
            let place = variable ?? file ?? "the configuration"
            return "unknown key \(key) in \(place)" + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        case .wrongType(let expected, let found):
            return "\(key)\(variable.map { " (\($0))" } ?? "") must be \(expected), got \(found)"
        case .missing(let expected):
            return "\(key) is missing; it must be \(expected)"
        case .invalid(let reason):
            return "\(key)\(variable.map { " (\($0))" } ?? ""): \(reason)"
        }
    }

    /// `name` as part of an environment variable name.
    static func environmentName(_ name: String) -> String {
        String(name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

extension ServerConfiguration {
    /// The event key of `log.event_key` (set by the file, `AUTHLOG_LOG__EVENT_KEY` or `AUTHLOG_EVENT_KEY`),
    /// if set.
    /// - Throws: ``Invalid`` when it is not 32 bytes of base64url.
    public func eventAuthenticator() throws -> EventAuthenticator? {
        guard let text = self.log?.eventKey else { return nil }
        do {
            return try EventAuthenticator(base64url: text)
        } catch {
            throw Invalid(description: "log.event_key (AUTHLOG_EVENT_KEY) must be 32 bytes in base64url")
        }
    }
}

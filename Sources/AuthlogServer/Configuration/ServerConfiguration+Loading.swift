import AuthlogCore
public import AuthlogStore
import Foundation

extension ServerConfiguration {
    /// A configuration problem, named for the operator.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String

        /// Creates the error.
        public init(description: String) { self.description = description }
    }

    /// Reads the JSON configuration file at `path`.
    /// - Throws: ``Invalid`` naming the problem.
    public static func load(path: String) throws -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "cannot read the configuration file \(path)")
        }
        do {
            return try JSONParser().parse(Array(data)).decode(ServerConfiguration.self)
        } catch {
            throw Invalid(description: "the configuration file \(path) is not valid: \(error)")
        }
    }

    /// This configuration with secrets taken from the environment where set:
    /// `AUTHLOG_DATA_KEY`, `AUTHLOG_EVENT_KEY`, `AUTHLOG_SUBJECT_KEY`, `AUTHLOG_KAKAO_ADMIN_KEY`, `AUTHLOG_APPLE_PRIVATE_KEY`, `AUTHLOG_GITHUB_CLIENT_SECRET`,
    /// `AUTHLOG_GITLAB_CLIENT_SECRET`, `AUTHLOG_KAKAO_CLIENT_SECRET`, `AUTHLOG_<NAME>_CLIENT_SECRET` for a
    /// generic OIDC provider, and `AUTHLOG_CLIENT_SECRET_<ID>` for an introspection client (names upper-cased,
    /// other characters than letters and digits as `_`).
    public func applyingEnvironment(_ environment: [String: String]) -> ServerConfiguration {
        var configuration = self
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let key = value("AUTHLOG_DATA_KEY") { configuration.dataKey = key }
        if let key = value("AUTHLOG_SUBJECT_KEY") { configuration.subjectKey = key }
        if let key = value("AUTHLOG_EVENT_KEY") {
            configuration.log = configuration.log ?? LogSettings()
            configuration.log?.eventKey = key
        }
        if let key = value("AUTHLOG_KAKAO_ADMIN_KEY") { configuration.providers?.kakao?.adminKey = key }
        if let pem = value("AUTHLOG_APPLE_PRIVATE_KEY") { configuration.providers?.apple?.privateKey = pem }
        if let secret = value("AUTHLOG_GITHUB_CLIENT_SECRET") { configuration.providers?.github?.clientSecret = secret }
        if let secret = value("AUTHLOG_GITLAB_CLIENT_SECRET") { configuration.providers?.gitlab?.clientSecret = secret }
        if let secret = value("AUTHLOG_KAKAO_CLIENT_SECRET") { configuration.providers?.kakao?.clientSecret = secret }
        for name in configuration.providers?.oidc?.keys.sorted() ?? [] {
            if let secret = value("AUTHLOG_\(Self.environmentName(name))_CLIENT_SECRET") {
                configuration.providers?.oidc?[name]?.clientSecret = secret
            }
        }
        if let clients = configuration.introspectionClients {
            configuration.introspectionClients = clients.map { client in
                var client = client
                if let secret = value("AUTHLOG_CLIENT_SECRET_\(Self.environmentName(client.id))") {
                    client.secret = secret
                }
                return client
            }
        }
        return configuration
    }

    /// `name` as part of an environment variable name.
    static func environmentName(_ name: String) -> String {
        String(name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

extension ServerConfiguration {
    /// The event key of `log.event_key` (after ``applyingEnvironment(_:)``: `AUTHLOG_EVENT_KEY`), if set.
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

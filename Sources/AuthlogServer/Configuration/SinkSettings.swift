import AuthlogAccounts
import Foundation

/// The push-delivery sinks with their defaults applied: the `sinks` setting.
public struct SinkSettings: Sendable {
    /// What a batch's body holds.
    public enum Format: String, Sendable {
        /// JSON lines of the export format (docs/events.md), as `authlog export` prints them.
        case export
        /// JSON lines of OCSF 1.8.0 events (docs/events.md, "OCSF").
        case ocsf
    }

    /// One sink.
    public struct Sink: Sendable {
        /// Its name, the key of its cursor.
        public var name: String
        /// Where batches are POSTed.
        public var url: String
        /// The key of the `Signature` header's HMAC-SHA-256.
        public var secret: [UInt8]
        /// The body's format.
        public var format: Format
        /// Events per batch.
        public var batchSize: Int
        /// How long one POST may take.
        public var timeout: Duration
        /// The longest wait between two attempts after failures.
        public var maximumRetryDelay: Duration
    }

    /// The sinks, in configuration order (empty: nothing is pushed).
    public let sinks: [Sink]

    /// Resolves the sinks of `configuration`.
    /// - Throws: ``ServerConfiguration/Invalid`` naming the setting that is wrong.
    public init(configuration: ServerConfiguration) throws {
        let entries = configuration.sinks ?? []
        guard entries.count <= 16 else { throw ServerConfiguration.Invalid(description: "sinks: at most 16 sinks") }
        var sinks: [Sink] = []
        for (index, entry) in entries.enumerated() {
            let at = "sinks[\(index)]"
            guard entry.name.range(of: "^[a-z0-9][a-z0-9_-]{0,63}$", options: .regularExpression) != nil else {
                throw ServerConfiguration.Invalid(
                    description: "\(at).name must be 1 to 64 of a-z 0-9 _ -, starting with a letter or digit"
                )
            }
            guard !sinks.contains(where: { $0.name == entry.name }) else {
                throw ServerConfiguration.Invalid(description: "\(at).name: another sink is named \(entry.name)")
            }
            guard entry.type == "http" else {
                throw ServerConfiguration.Invalid(description: "\(at).type must be http, got \(entry.type)")
            }
            guard let url = URL(string: entry.url), url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw ServerConfiguration.Invalid(description: "\(at).url must be an http(s) URL")
            }
            guard let secret = entry.secret, secret.utf8.count >= 32, secret.utf8.count <= 1024 else {
                throw ServerConfiguration.Invalid(
                    description: "\(at).secret must be 32 to 1,024 characters (AUTHLOG_SINKS__\(index)__SECRET)"
                )
            }
            guard let format = Format(rawValue: entry.format ?? Format.export.rawValue) else {
                throw ServerConfiguration.Invalid(description: "\(at).format must be export or ocsf")
            }
            sinks.append(
                Sink(
                    name: entry.name,
                    url: entry.url,
                    secret: Array(secret.utf8),
                    format: format,
                    batchSize: try ServiceSettings.checked(
                        entry.batchSize,
                        "\(at).batch_size",
                        default: 100,
                        in: 1...1000
                    ),
                    timeout: .seconds(
                        try ServiceSettings.checked(
                            entry.timeoutSeconds,
                            "\(at).timeout_seconds",
                            default: 10,
                            in: 1...60
                        )
                    ),
                    maximumRetryDelay: .seconds(
                        try ServiceSettings.checked(
                            entry.maximumRetrySeconds,
                            "\(at).maximum_retry_seconds",
                            default: 300,
                            in: 1...3600
                        )
                    )
                )
            )
        }
        self.sinks = sinks
    }
}

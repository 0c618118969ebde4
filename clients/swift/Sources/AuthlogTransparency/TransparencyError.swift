/// Why a key, a name, a policy or a file of the transparency code is refused. The verification verdicts have
/// enums of their own (``ConsistencyVerifier/Failure``, ``NoteVerifier/Failure``, ``LogReceipt/Failure``);
/// this is for what is wrong before anything is verified.
public struct TransparencyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// A key, a key name or a verifier key string is malformed, of the wrong type or does not match itself.
        public static let invalidKey = Code(name: "invalid_key")
        /// A witness policy is malformed or inconsistent (the message names the line).
        public static let invalidPolicy = Code(name: "invalid_policy")
        /// The signing key could not sign.
        public static let signingFailed = Code(name: "signing_failed")
        /// A file could not be read, written, synced or renamed; a file being replaced is as it was.
        public static let fileSystem = Code(name: "file_system")
        /// A file was replaced or created, but its directory could not be flushed to disk: the new contents are in
        /// place and readers see them, yet a power cut may still undo the change (``DurableFile``).
        public static let notDurable = Code(name: "not_durable")

        /// The code's name, such as `file_system`.
        public var description: String { self.name }
    }

    /// The kind of problem.
    public let code: Code
    /// What is wrong, for a person; it names the line, file or key concerned and never holds a secret.
    public let message: String

    /// An error of `code` saying `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}

/// The one error type of the libpq driver (AuthlogPostgres) and of the store built on it (AuthlogStore).
///
/// `description` never contains bound values, connection passwords or row data: only the code, the
/// SQLSTATE and the server's primary message. `debugDescription` adds the server's detail.
public struct StoreError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The database could not be reached, or the connection broke.
        public static let connectionFailed = Code("connection_failed")
        /// The server refused a statement; see ``StoreError/sqlState``.
        public static let server = Code("server_error")
        /// A stream was not at the version a command expected.
        public static let wrongExpectedVersion = Code("wrong_expected_version")
        /// A command's DPoP proof was recorded before (`AppendCommand.dpopProof`).
        public static let dpopProofReplayed = Code("dpop_proof_replayed")
        /// An event failed validation before it reached the database.
        public static let invalidEvent = Code("invalid_event")
        /// A row did not decode into the Swift type asked for.
        public static let decoding = Code("decoding_failed")
        /// The schema is not in a state this program can work with (for example a changed migration).
        public static let schema = Code("schema_error")
        /// The role lacks a privilege the operation needs; the message names it.
        public static let insufficientPrivilege = Code("insufficient_privilege")
        /// A proof or checkpoint was asked for a position or tree size the log does not have.
        public static let outOfRange = Code("out_of_range")
        /// What was asked for lay in months that retention dropped (AuthlogStore's `RetentionPlan`).
        public static let dropped = Code("dropped")
        /// A value given to a store operation is not acceptable (the message says which and why).
        public static let invalidArgument = Code("invalid_argument")
        /// What was to be created exists already.
        public static let conflict = Code("conflict")
        /// The embedded PostgreSQL cluster could not be prepared.
        /// This process's event key is not the one the log's events are authenticated with (or it has none).
        public static let eventKey = Code("event_key")
        public static let embeddedDatabase = Code("embedded_database")

        public var description: String { self.name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A one-sentence explanation without secrets.
    public var message: String
    /// The server's SQLSTATE, when the server reported the error.
    public var sqlState: String?
    /// The server's detail line, shown only by `debugDescription`.
    public var detail: String?
    /// For `.invalidEvent` and `.wrongExpectedVersion`: the index of the event at fault within its command.
    public var eventIndex: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, sqlState: String? = nil, detail: String? = nil, eventIndex: Int? = nil)
    {
        self.eventIndex = eventIndex
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
    }

    public var description: String {
        if let sqlState {
            // Data exceptions (class 22) quote the offending input, which may be a bound secret.
            let message = sqlState.hasPrefix("22") ? Self.maskingQuotedText(self.message) : self.message
            return "\(self.code) (SQLSTATE \(sqlState)): \(message)"
        }
        return "\(self.code): \(self.message)"
    }

    /// The error as one sentence for a person at a terminal: no code names and no SQLSTATE, the quoted input of
    /// a data exception masked as in ``description``; a missing privilege (SQLSTATE 42501) says which role the
    /// work needs.
    public var sentence: String {
        guard let sqlState = self.sqlState else { return self.message }
        switch sqlState {
        case "42501":
            return "the database role given may not do this (PostgreSQL: \(self.message)); run it with the URL of "
                + "the role that owns authlog's schema (the one `authlog migrate` runs as, a member of authlog_owner)"
        case let state where state.hasPrefix("22"):
            return Self.maskingQuotedText(self.message)
        default:
            return self.message
        }
    }

    public var debugDescription: String {
        let sqlState = self.sqlState.map { " (SQLSTATE \($0))" } ?? ""
        return "\(self.code)\(sqlState): \(self.message)" + (self.detail.map { " — \($0)" } ?? "")
    }

    /// `invalid input syntax for type integer: "abc"` → `… integer: "****"`.
    private static func maskingQuotedText(_ message: String) -> String {
        var output = ""
        var inQuote = false
        for character in message {
            if character == "\"" {
                output.append(inQuote ? "****\"" : "\"")
                inQuote.toggle()
            } else if !inQuote {
                output.append(character)
            }
        }
        return output
    }
}

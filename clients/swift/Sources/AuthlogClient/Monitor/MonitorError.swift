public import AuthlogTransparency

/// Why the monitor could not use an answer, or could not ask: every bad answer from the server is one of these,
/// never a crash. An answer that is bad counts against the events it was for (after
/// ``LogMonitor/Configuration/badAnswerTries`` they are refused with ``ReceiptRefusal/badAnswers(_:)``); no
/// answer at all (``transport``, ``signedOut``, a 5xx or 429) does not.
public enum MonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The answer's body is larger than the bound (``LogMonitor/Configuration/maximumAnswerBytes``).
    case answerTooLarge(limit: Int)
    /// The checkpoint note is larger than ``LogMonitor/maximumNoteBytes``.
    case noteTooLarge(limit: Int)
    /// The body is not JSON of the expected shape (the text says where).
    case malformedAnswer(String)
    /// A required member is missing.
    case missingField(String)
    /// A member that holds base64 does not.
    case badBase64(field: String)
    /// A proof member is not whole 32-byte hashes, or holds more than its bound.
    case badProof(field: String, detail: String)
    /// The answer names an event that was not asked for, or one twice.
    case unexpectedEvent(String)
    /// The checkpoint is not signed by the pinned log key (a wrong key, a bad signature, not a signed note).
    case checkpoint(NoteVerifier.Failure)
    /// The checkpoint's body is not a tlog checkpoint.
    case notACheckpoint
    /// The checkpoint's origin is not the pinned origin.
    case wrongOrigin(checkpoint: String, pinned: String)
    /// authlog answered with an error status (its `error` code when it gave one).
    case http(status: Int, code: String?)
    /// No answer came (the connection failed or was cut).
    case transport
    /// There is no session to ask with (signed out, or the session ended).
    case signedOut
    /// The checkpoint store could not be read or written.
    case store(String)

    /// Whether the server answered, and the answer was bad: such answers count against the events.
    var isBadAnswer: Bool {
        switch self {
        case .answerTooLarge, .noteTooLarge, .malformedAnswer, .missingField, .badBase64, .badProof, .unexpectedEvent,
            .checkpoint, .notACheckpoint, .wrongOrigin:
            true
        case .http, .transport, .signedOut, .store: false
        }
    }

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .answerTooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .noteTooLarge(let limit): "the checkpoint note is larger than \(limit) bytes"
        case .malformedAnswer(let why): "the answer is malformed: \(why)"
        case .missingField(let name): "the answer has no `\(name)`"
        case .badBase64(let field): "`\(field)` is not base64"
        case .badProof(let field, let detail): "`\(field)`: \(detail)"
        case .unexpectedEvent(let id): "the answer names an event not asked for, or twice: \(id)"
        case .checkpoint(let failure): "the checkpoint: \(failure)"
        case .notACheckpoint: "the note is not a checkpoint"
        case .wrongOrigin(let origin, let pinned): "the checkpoint's origin \(origin) is not the pinned \(pinned)"
        case .http(let status, let code): "HTTP \(status)\(code.map { " \($0)" } ?? "")"
        case .transport: "no answer from the server"
        case .signedOut: "no session to ask with"
        case .store(let why): "the checkpoint store: \(why)"
        }
    }
}

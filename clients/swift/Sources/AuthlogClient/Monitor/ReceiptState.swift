public import AuthlogTransparency
public import Foundation

/// Where the monitor stands on one event: not checked yet, pending, verified or refused.
public enum ReceiptState: Sendable, Equatable {
    /// The monitor has not seen the event (it is off, or its queue was full).
    case notChecked
    /// Queued; its receipt has not been asked for yet.
    case queued
    /// Asked for and not settled; asked again later.
    case pending(PendingReason)
    /// Proven in the log, as this user's own action.
    case verified(VerifiedReceipt)
    /// Refused, for the reason given; not asked again.
    case refused(ReceiptRefusal)
}

/// Why a receipt is not settled yet.
public enum PendingReason: Sendable, Equatable {
    /// No signed checkpoint covers the event yet (the server said so).
    case notCheckpointed
    /// Proven in a checkpoint the log signed, but fewer witnesses than the policy's quorum cosigned it (those
    /// that did are named).
    case belowQuorum(cosigned: [String])
    /// The server did not give the receipt this many times; after ``LogMonitor/Configuration/notFoundTries`` the
    /// event is refused with ``ReceiptRefusal/notFound(tries:)``.
    case notFoundYet(tries: Int)
    /// The event is another user's than the one signed in now: it is asked for when that user signs in again.
    case waitingForSignIn
    /// The last attempt failed (no answer, or a bad one); tried again after a bounded back-off.
    case retrying(MonitorError)
}

/// An event proven in the log.
public struct VerifiedReceipt: Sendable, Hashable {
    /// The event id.
    public var eventID: String
    /// The event type, as its bytes say.
    public var type: String
    /// Its position in the log (leaf index + 1).
    public var position: Int64
    /// When it happened, as its bytes say.
    public var occurredAt: Date
    /// The session its bytes name, if any.
    public var sessionID: String?
    /// The tree size of the checkpoint it was proven in.
    public var checkpointSize: Int64
    /// The witnesses whose cosignatures of that checkpoint verified, in the policy's order (empty when the app
    /// pins no witness).
    public var witnessedBy: [String]

    /// Creates a verified receipt.
    public init(
        eventID: String,
        type: String,
        position: Int64,
        occurredAt: Date,
        sessionID: String?,
        checkpointSize: Int64,
        witnessedBy: [String]
    ) {
        self.eventID = eventID
        self.type = type
        self.position = position
        self.occurredAt = occurredAt
        self.sessionID = sessionID
        self.checkpointSize = checkpointSize
        self.witnessedBy = witnessedBy
    }
}

/// Why the monitor refused an event's receipt.
public enum ReceiptRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The proven event is another user's (or names no user).
    case anotherUser(expected: String, found: String?)
    /// The proven event names a session that is not the one the answer was for.
    case anotherSession(expected: [String], found: String)
    /// The proven event is of a type that always names its session, and names none.
    case missingSession(type: String)
    /// The proven event happened outside the window around the request (``LogMonitor/Configuration/timeWindow``).
    case outsideTimeWindow(occurredAt: Date, requestedAt: Date)
    /// The event is of a type the call does not append (a refresh's answer naming a sign-in, say).
    case unexpectedType(expected: [String], found: String)
    /// The activity listed the event at another position than the one proven.
    case positionMismatch(listed: Int64, proven: Int64)
    /// The server did not give the receipt of an event it named, this many times.
    case notFound(tries: Int)
    /// The proof does not verify against the checkpoint the log signed (the batch's failure).
    case proofFailed(ReceiptBatch.Failure)
    /// The server's answers for it were bad this many times in a row; the last one's error.
    case badAnswers(MonitorError)
    /// The checkpoint it was shown in raised a split-view alarm.
    case splitView(SplitViewAlarm.Reason)

    /// Why, for a person.
    public var description: String {
        switch self {
        case .anotherUser(let expected, let found):
            "the event is another user's (\(found ?? "no user"), not \(expected))"
        case .anotherSession(let expected, let found):
            "the event is of the session \(found), not \(expected.joined(separator: " or "))"
        case .missingSession(let type): "the event is a \(type) without the session every one names"
        case .outsideTimeWindow(let occurred, let requested):
            "the event happened at \(occurred), too far from the request at \(requested)"
        case .unexpectedType(let expected, let found):
            "the event is a \(found), not \(expected.joined(separator: " or "))"
        case .positionMismatch(let listed, let proven):
            "the activity listed the event at position \(listed), the proof puts it at \(proven)"
        case .notFound(let tries): "the server did not give the receipt (\(tries) tries)"
        case .proofFailed(let failure): "the proof does not verify: \(failure)"
        case .badAnswers(let error): "the server's answers were bad: \(error)"
        case .splitView(let reason): "its checkpoint raised a split-view alarm (\(reason))"
        }
    }
}

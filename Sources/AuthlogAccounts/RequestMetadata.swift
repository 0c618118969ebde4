public import AuthlogCore
public import Foundation

/// Who asked, as recorded in every event of the request.
public struct RequestMetadata: Sendable {
    /// The client address, resolved through the trusted proxies.
    public var ip: IPAddress?
    /// The `User-Agent` (cut to the envelope's limit when stored).
    public var userAgent: String?
    /// The request id, also in the `X-Request-Id` answer header and log lines.
    public var requestID: String
    /// The app that asked, when it said.
    public var clientID: String?

    /// Creates metadata.
    public init(ip: IPAddress? = nil, userAgent: String? = nil, requestID: String, clientID: String? = nil) {
        self.ip = ip
        self.userAgent = userAgent
        self.requestID = requestID
        self.clientID = clientID
    }

    /// An envelope carrying this request's columns, made by the typed-payload initializer of
    /// ``EventEnvelope``, as every event authlog writes itself is (ingested events are parsed instead).
    /// - Throws: `EncodingError` if the payload cannot be encoded.
    public func envelope<Payload: EventPayload>(
        stream: StreamName,
        outcome: Outcome = .success,
        reason: String? = nil,
        provider: String? = nil,
        userID: UUID? = nil,
        sessionID: UUID? = nil,
        at occurredAt: Timestamp,
        data: Payload
    ) throws -> EventEnvelope {
        try EventEnvelope(
            data,
            stream: stream,
            occurredAt: occurredAt,
            outcome: outcome,
            reason: reason,
            provider: provider,
            userID: userID,
            sessionID: sessionID,
            clientID: self.clientID,
            ip: self.ip,
            userAgent: self.userAgent,
            requestID: self.requestID
        )
    }
}

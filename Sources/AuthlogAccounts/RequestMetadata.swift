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
    /// AuthlogClient's per-install device id (`Authlog-Device-Id`), when it is one (``deviceIDIfValid(_:)``).
    /// Never stored: only its keyed hash is.
    public var deviceID: String?
    /// The RFC 7638 thumbprint of the DPoP key the request proved it holds (its proof checked and its `jti`
    /// recorded), which the tokens it issues are bound to.
    public var dpopKey: String?

    /// Creates metadata.
    public init(
        ip: IPAddress? = nil,
        userAgent: String? = nil,
        requestID: String,
        clientID: String? = nil,
        deviceID: String? = nil
    ) {
        self.ip = ip
        self.userAgent = userAgent
        self.requestID = requestID
        self.clientID = clientID
        self.deviceID = deviceID
    }

    /// `value` when it is a device id: 22 to 64 base64url characters (AuthlogClient sends 43: 32 random bytes);
    /// anything else is taken as no device id, and the sign-in falls back to the user agent and the network.
    public static func deviceIDIfValid(_ value: String?) -> String? {
        guard let value, (22...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x5F
            })
        else { return nil }
        return value
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

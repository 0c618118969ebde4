import HTTPTypes

extension HTTPField.Name {
    /// `X-Request-Id`: the request's id on every answer.
    static let requestID = HTTPField.Name(knownValid: "X-Request-Id")
    /// `Authlog-Event-Ids`: the events the request appended, comma-separated.
    static let eventIDs = HTTPField.Name(knownValid: "Authlog-Event-Ids")
    /// `Authlog-Receipt-Witnessed`: whether a receipt's checkpoint is witnessed (`yes`, `pending`, `none`).
    static let receiptWitnessed = HTTPField.Name(knownValid: "Authlog-Receipt-Witnessed")
    /// `Authlog-Head`: the sealed log's size a streamed export ends at.
    static let exportHead = HTTPField.Name(knownValid: "Authlog-Head")
    /// `Authlog-Device-Id`: AuthlogClient's per-install device id, on sign-ins and refreshes.
    static let deviceID = HTTPField.Name(knownValid: "Authlog-Device-Id")
    /// `DPoP`: a proof of possession of the client's key (RFC 9449).
    static let dpop = HTTPField.Name(knownValid: "DPoP")
    /// `DPoP-Nonce`: the server's current DPoP nonce, when proofs must carry one.
    static let dpopNonce = HTTPField.Name(knownValid: "DPoP-Nonce")
    /// `X-Forwarded-For`: believed only from trusted proxies.
    static let forwardedFor = HTTPField.Name(knownValid: "X-Forwarded-For")

    /// A header name known at compile time to be valid (a token of letters, digits and hyphens).
    private init(knownValid name: StaticString) {
        guard let valid = HTTPField.Name(name.description) else {
            preconditionFailure("\(name) is not a valid header name")
        }
        self = valid
    }
}

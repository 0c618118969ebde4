extension AuthTokens {
    /// The `token_type` of authlog's token answer (RFC 6749 §7.1): how the access token is sent.
    public struct TokenType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The type as authlog spells it.
        public let rawValue: String

        /// Creates a type.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `Authorization: Bearer <access token>` (RFC 6750).
        public static let bearer = TokenType(rawValue: "Bearer")
        /// `Authorization: DPoP <access token>` with a proof of the install's key (RFC 9449).
        public static let dpop = TokenType(rawValue: "DPoP")

        /// The type of a token answer's `token_type` (compared without regard to case, as RFC 6749 asks); a missing or
        /// unknown type is Bearer, as answers were before DPoP.
        init(answer: String?) {
            self = answer?.lowercased() == "dpop" ? .dpop : .bearer
        }

        /// The type as authlog spells it.
        public var description: String { self.rawValue }
    }
}

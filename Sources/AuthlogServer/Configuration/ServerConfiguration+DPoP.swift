extension ServerConfiguration {
    /// The `dpop` section (RFC 9449, docs/configuration.md): which clients' sign-ins are bound to a key, server
    /// nonces, and how old a proof may be.
    public struct DPoPSection: Codable, Sendable {
        /// `off`, `optional` (default: a sign-in with a proof is bound, one without is not) or `required`: the
        /// policy of clients not listed in `clients`.
        public var policy: String?
        /// The policies of named clients.
        public var clients: [ClientPolicy]?
        /// Whether proofs must carry the server's nonce (`DPoP-Nonce`); default `false`. Needs `data_key`.
        public var nonces: Bool?
        /// How often the server nonce changes, in seconds (default 300, 10 to 86400).
        public var nonceRotationSeconds: Int?
        /// How old a proof's `iat` may be, in seconds (default 60, 5 to 600); a `jti` is remembered as long.
        public var maximumAgeSeconds: Int?
        /// How far ahead of the server's clock a proof's `iat` may be, in seconds (default 15, 0 to 300).
        public var maximumSkewSeconds: Int?

        /// An empty section.
        public init() {}

        /// One client's policy.
        public struct ClientPolicy: Codable, Sendable {
            /// The `client_id` the app signs in with.
            public var clientID: String
            /// `off`, `optional` or `required`.
            public var policy: String

            /// Creates an entry.
            public init(clientID: String, policy: String) {
                self.clientID = clientID
                self.policy = policy
            }

            enum CodingKeys: String, CodingKey {
                case clientID = "client_id"
                case policy
            }
        }
    }
}

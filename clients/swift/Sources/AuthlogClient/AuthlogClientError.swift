/// Why a call to authlog failed: authlog's JSON `error` code and the HTTP status, or a failure on the device.
///
/// Neither ``description`` nor ``debugDescription`` ever contains a token: only the code, the status and the
/// server's `error_description` (a sentence for a person, which authlog never fills with secrets).
public struct AuthlogClientError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// An error code: authlog's `error` member (`invalid_grant`, `reauthentication_required`, …) or one of the
    /// client's own codes below.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as authlog spells it.
        public let rawValue: String

        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The refresh token is spent, revoked or expired: the session is over.
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        /// The access token was refused.
        public static let invalidToken = Code(rawValue: "invalid_token")
        /// Linking, unlinking or deletion needs a recent sign-in: call ``AuthlogClient/reauthenticate(with:)``.
        public static let reauthenticationRequired = Code(rawValue: "reauthentication_required")
        /// Another user holds the identity's verified email; ``AuthlogClientError/providers`` names theirs.
        public static let accountExists = Code(rawValue: "account_exists")
        /// A sign-in or refresh judged unusual for the user (a new device, place or network) and refused by the
        /// server's policy: the user signs in again, from a device or place used before.
        public static let signinUnusual = Code(rawValue: "signin_unusual")
        /// The thing named does not exist (or is not the user's).
        public static let notFound = Code(rawValue: "not_found")
        /// No session on this device: sign in first (client code; no request was made).
        public static let signedOut = Code(rawValue: "signed_out")
        /// No answer from the server: the connection failed or was cut (client code).
        public static let transport = Code(rawValue: "transport")
        /// An answer the client could not read (client code).
        public static let invalidResponse = Code(rawValue: "invalid_response")
        /// An answer whose body is longer than the client reads for that call (client code; the reading stopped
        /// at the bound).
        public static let answerTooLarge = Code(rawValue: "answer_too_large")
        /// The system's random generator failed (client code; OpenSSL's on Linux can fail, CryptoKit's stops
        /// the program instead).
        public static let randomUnavailable = Code(rawValue: "random_unavailable")
        /// The token store could not be read or written (client code).
        public static let tokenStore = Code(rawValue: "token_store")
        /// A DPoP proof (RFC 9449) was refused; ``AuthlogClientError/dpopReason`` says why. The session is not ended
        /// by it: the tokens stay.
        public static let invalidDPoPProof = Code(rawValue: "invalid_dpop_proof")
        /// The server asked again for a DPoP nonce after the client had retried once with the nonce it gave.
        public static let useDPoPNonce = Code(rawValue: "use_dpop_nonce")
        /// The install's DPoP key could not be made or used (client code): the platform's crypto failed, or the
        /// stored key is not usable on this device.
        public static let dpopKeyUnavailable = Code(rawValue: "dpop_key_unavailable")

        /// The code as authlog spells it.
        public var description: String { self.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The HTTP status of authlog's answer, or `nil` when there was none.
    public let status: Int?
    /// authlog's `error_description`, or a note from the client.
    public let detail: String?
    /// For ``Code/accountExists``: the providers to sign in with instead.
    public let providers: [String]
    /// For ``Code/invalidDPoPProof`` and ``Code/useDPoPNonce``: the check the proof failed (the answer's `reason`).
    public let dpopReason: DPoPReason?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - status: The HTTP status of the answer, if there was one.
    ///   - detail: The answer's `error_description`, or a note from the client.
    ///   - providers: For ``Code/accountExists``, the providers to sign in with instead.
    ///   - dpopReason: For a refused DPoP proof, the check it failed.
    public init(
        _ code: Code,
        status: Int? = nil,
        detail: String? = nil,
        providers: [String] = [],
        dpopReason: DPoPReason? = nil
    ) {
        self.code = code
        self.status = status
        self.detail = detail
        self.providers = providers
        self.dpopReason = dpopReason
    }

    /// Whether the session is gone and the user must sign in again.
    public var isSignedOut: Bool { self.code == .signedOut || self.code == .invalidGrant }

    /// The code, the status and the DPoP reason only.
    public var description: String {
        let reason = self.dpopReason.map { ", \($0)" } ?? ""
        return "AuthlogClientError(\(self.code)\(self.status.map { ", status \($0)" } ?? "")\(reason))"
    }

    /// The code, the status and the detail.
    public var debugDescription: String {
        var text = self.description
        if let detail = self.detail { text += ": \(detail)" }
        if !self.providers.isEmpty { text += " (providers: \(self.providers.joined(separator: ", ")))" }
        return text
    }
}

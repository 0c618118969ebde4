public import AuthlogCore
import Foundation

/// Makes realistic, valid event sequences for tests and benchmarks: registrations, sign-ins, failures,
/// refreshes, reuse of rotated tokens, logouts, revocations, consent withdrawals and deletions, spread
/// over several days and providers. Deterministic for a given seed.
public struct TrafficGenerator: Sendable {
    private struct User {
        let id: UUID
        let provider: String
    }

    private struct Session {
        let id: UUID
        let userID: UUID
        let provider: String
        var tokenID: UUID
        var rotated: [UUID]
        let familyID: UUID
    }

    /// The providers sign-ins are spread over.
    public static let providers = ["apple", "github", "gitlab", "google", "kakao", "firebase"]

    private var random: SeededRandom
    private var clock: Timestamp
    private var users: [User] = []
    private var sessions: [UUID: Session] = [:]
    private var activeSessions: [UUID] = []
    private var activeIndex: [UUID: Int] = [:]
    private var sessionsOfUser: [UUID: [UUID]] = [:]

    /// Creates a generator whose first event happens at `start`. `existingUsers` users count as registered
    /// before the first event (their registrations are not generated), as in a service already in use.
    public init(
        seed: UInt64,
        start: Timestamp = Timestamp(iso8601: "2026-10-01T00:00:00Z") ?? .now(),
        existingUsers: Int = 0
    ) {
        self.random = SeededRandom(seed: seed)
        self.clock = start
        for _ in 0..<existingUsers {
            let provider = Self.providers[Int.random(in: 0..<Self.providers.count, using: &self.random)]
            self.users.append(User(id: self.uuid(), provider: provider))
        }
    }

    /// The events of one more user action (one to three events, in order).
    public mutating func nextAction() -> [EventEnvelope] {
        self.clock = Timestamp(
            microsecondsSinceEpoch: self.clock.microsecondsSinceEpoch
                + Int64.random(in: 1_000...1_800_000_000, using: &self.random)
        )
        let roll = Int.random(in: 0..<100, using: &self.random)
        switch roll {
        case 0..<15: return self.register()
        case 15..<40 where !self.users.isEmpty: return self.signIn()
        case 40..<52: return self.failSignIn()
        case 52..<72 where !self.activeSessions.isEmpty: return self.refresh()
        case 72..<75 where !self.activeSessions.isEmpty: return self.reuse()
        case 75..<83 where !self.activeSessions.isEmpty: return self.logout()
        case 83..<86 where !self.activeSessions.isEmpty: return self.revokeSession()
        case 86..<88 where !self.users.isEmpty: return self.withdrawConsent()
        case 88..<89 where !self.users.isEmpty: return self.deleteAccount()
        case 89..<94: return self.failRefresh()
        case 94..<96 where !self.activeSessions.isEmpty: return self.expireSession()
        default: return self.register()
        }
    }

    /// At least `count` events, whole actions only.
    public mutating func events(count: Int) -> [EventEnvelope] {
        var events: [EventEnvelope] = []
        while events.count < count { events += self.nextAction() }
        return events
    }

    private mutating func uuid() -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &self.random) }
        return UUID(version: 4, bytes: bytes)
    }

    private mutating func hashHex() -> String {
        Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &self.random) })
    }

    private mutating func ip() -> IPAddress? {
        IPAddress("203.0.113.\(Int.random(in: 1...254, using: &self.random))")
    }

    private mutating func register() -> [EventEnvelope] {
        let provider = Self.providers[Int.random(in: 0..<Self.providers.count, using: &self.random)]
        let user = User(id: self.uuid(), provider: provider)
        self.users.append(user)
        let subject = self.hashHex()
        let registered = self.make(
            UserRegistered(provider: provider, subjectHash: subject),
            stream: StreamName(category: "user", id: user.id.lowercased),
            provider: provider,
            userID: user.id,
            sessionID: nil
        )
        return [registered] + self.startSession(for: self.users.count - 1, subject: subject, isNew: true)
    }

    private mutating func signIn() -> [EventEnvelope] {
        let index = Int.random(in: 0..<self.users.count, using: &self.random)
        return self.startSession(for: index, subject: self.hashHex(), isNew: false)
    }

    private mutating func startSession(for index: Int, subject: String, isNew: Bool) -> [EventEnvelope] {
        let user = self.users[index]
        let session = Session(
            id: self.uuid(),
            userID: user.id,
            provider: user.provider,
            tokenID: self.uuid(),
            rotated: [],
            familyID: self.uuid()
        )
        self.sessions[session.id] = session
        self.activeIndex[session.id] = self.activeSessions.count
        self.activeSessions.append(session.id)
        self.sessionsOfUser[user.id, default: []].append(session.id)
        let stream = StreamName(category: "session", id: session.id.lowercased)
        let succeeded = self.make(
            SigninSucceeded(method: "id_token", subjectHash: subject, nonceCheck: "matched", isNewUser: isNew),
            stream: stream,
            provider: user.provider,
            userID: user.id,
            sessionID: session.id
        )
        let issued = self.make(
            TokenIssued(
                accessTokenID: self.uuid(),
                accessTokenExpiresAt: self.clock.adding(seconds: 900),
                refreshTokenID: session.tokenID,
                refreshTokenHash: self.hashHex(),
                familyID: session.familyID,
                refreshTokenExpiresAt: self.clock.adding(seconds: 30 * 86_400)
            ),
            stream: stream,
            provider: user.provider,
            userID: user.id,
            sessionID: session.id
        )
        return [succeeded, issued]
    }

    private mutating func failSignIn() -> [EventEnvelope] {
        let provider = Self.providers[Int.random(in: 0..<Self.providers.count, using: &self.random)]
        let reasons = ["invalid_signature", "expired", "audience_mismatch", "nonce_replayed", "unknown_kid"]
        let reason = reasons[Int.random(in: 0..<reasons.count, using: &self.random)]
        return [
            self.make(
                SigninFailed(reason: reason, method: "id_token"),
                stream: StreamName(category: "signin", id: provider),
                outcome: .failure,
                reason: reason,
                provider: provider,
                userID: nil,
                sessionID: nil
            )
        ]
    }

    private mutating func pickActiveSession() -> Session? {
        guard !self.activeSessions.isEmpty else { return nil }
        return self.sessions[self.activeSessions[Int.random(in: 0..<self.activeSessions.count, using: &self.random)]]
    }

    private mutating func refresh() -> [EventEnvelope] {
        guard var session = self.pickActiveSession() else { return self.register() }
        let newTokenID = self.uuid()
        let event = self.make(
            TokenRefreshed(
                oldTokenID: session.tokenID,
                newTokenID: newTokenID,
                newTokenHash: self.hashHex(),
                familyID: session.familyID,
                refreshTokenExpiresAt: self.clock.adding(seconds: 30 * 86_400),
                accessTokenID: self.uuid(),
                accessTokenExpiresAt: self.clock.adding(seconds: 900)
            ),
            stream: StreamName(category: "session", id: session.id.lowercased),
            provider: session.provider,
            userID: session.userID,
            sessionID: session.id
        )
        session.rotated.append(session.tokenID)
        session.tokenID = newTokenID
        self.sessions[session.id] = session
        return [event]
    }

    private mutating func reuse() -> [EventEnvelope] {
        guard let session = self.pickActiveSession(), let old = session.rotated.last else { return self.refresh() }
        self.end(session.id)
        return [
            self.make(
                TokenReuseDetected(tokenID: old, familyID: session.familyID),
                stream: StreamName(category: "session", id: session.id.lowercased),
                outcome: .failure,
                reason: "refresh_token_reused",
                provider: session.provider,
                userID: session.userID,
                sessionID: session.id
            )
        ]
    }

    private mutating func logout() -> [EventEnvelope] {
        guard let session = self.pickActiveSession() else { return self.register() }
        let scope: LogoutScope = Bool.random(using: &self.random) ? .this : .all
        if scope == .all {
            for other in self.sessionsOfUser[session.userID] ?? [] { self.end(other) }
        } else {
            self.end(session.id)
        }
        return [
            self.make(
                SessionLoggedOut(scope: scope),
                stream: StreamName(category: "session", id: session.id.lowercased),
                provider: session.provider,
                userID: session.userID,
                sessionID: session.id
            )
        ]
    }

    private mutating func revokeSession() -> [EventEnvelope] {
        guard let session = self.pickActiveSession() else { return self.register() }
        // An operator, the app (RFC 7009) or Apple's credential state, chosen by the session id so that the
        // random sequence of every seed stays what it was.
        let reasons: [SessionEndReason] = [.admin, .tokenRevoked, .credentialRevoked]
        let reason = reasons[Int(session.id.uuid.0) % reasons.count]
        return self.ending(
            session,
            SessionRevoked(reason: reason, actor: reason == .admin ? "admin:test" : nil),
            reason: reason.rawValue
        )
    }

    private mutating func expireSession() -> [EventEnvelope] {
        guard let session = self.pickActiveSession() else { return self.register() }
        let limit: SessionLimit = Bool.random(using: &self.random) ? .idle : .absolute
        return self.ending(session, SessionExpired(limit: limit), reason: "expired")
    }

    /// Ends `session` with the event carrying `payload`.
    private mutating func ending(_ session: Session, _ payload: some EventPayload, reason: String) -> [EventEnvelope] {
        self.end(session.id)
        return [
            self.make(
                payload,
                stream: StreamName(category: "session", id: session.id.lowercased),
                reason: reason,
                provider: session.provider,
                userID: session.userID,
                sessionID: session.id
            )
        ]
    }

    private mutating func withdrawConsent() -> [EventEnvelope] {
        let user = self.users[Int.random(in: 0..<self.users.count, using: &self.random)]
        for session in self.sessionsOfUser[user.id] ?? [] { self.end(session) }
        return [
            self.make(
                ProviderConsentRevoked(source: .appleNotification, providerEventID: self.uuid().lowercased),
                stream: StreamName(category: "user", id: user.id.lowercased),
                reason: "consent-revoked",
                provider: user.provider,
                userID: user.id,
                sessionID: nil
            )
        ]
    }

    private mutating func deleteAccount() -> [EventEnvelope] {
        let index = Int.random(in: 0..<self.users.count, using: &self.random)
        self.users.swapAt(index, self.users.count - 1)
        let user = self.users.removeLast()
        for session in self.sessionsOfUser.removeValue(forKey: user.id) ?? [] { self.end(session) }
        return [
            self.make(
                AccountDeleted(providerRevocations: [user.provider: .revoked]),
                stream: StreamName(category: "user", id: user.id.lowercased),
                reason: "user_request",
                provider: user.provider,
                userID: user.id,
                sessionID: nil
            )
        ]
    }

    private mutating func failRefresh() -> [EventEnvelope] {
        [
            self.make(
                TokenRefreshFailed(reason: "unknown_token"),
                stream: StreamName(category: "signin", id: "unknown"),
                outcome: .failure,
                reason: "unknown_token",
                provider: nil,
                userID: nil,
                sessionID: nil
            )
        ]
    }

    private mutating func end(_ sessionID: UUID) {
        guard let index = self.activeIndex.removeValue(forKey: sessionID) else { return }
        let last = self.activeSessions.removeLast()
        if index < self.activeSessions.count {
            self.activeSessions[index] = last
            self.activeIndex[last] = index
        }
    }

    /// The app a user (or a failed sign-in) uses: one of two, by the id, without drawing a random number.
    private static func client(of id: UUID) -> String {
        id.uuid.15 % 2 == 0 ? "com.example.ios" : "com.example.web"
    }

    private mutating func make<Payload: EventPayload>(
        _ payload: Payload,
        stream: StreamName,
        outcome: Outcome? = nil,
        reason: String? = nil,
        provider: String?,
        userID: UUID?,
        sessionID: UUID?
    ) -> EventEnvelope {
        let eventID = self.uuid()
        let envelope = try? EventEnvelope(
            payload,
            eventID: eventID,
            stream: stream,
            occurredAt: self.clock,
            outcome: outcome,
            reason: reason,
            provider: provider,
            userID: userID,
            sessionID: sessionID,
            clientID: Self.client(of: userID ?? eventID),
            ip: self.ip(),
            userAgent: "ExampleApp/1.0 (iPhone; iOS 18.1)",
            requestID: "req-\(Int.random(in: 0...999_999, using: &self.random))"
        )
        guard let envelope else { preconditionFailure("generated payloads always encode") }
        return envelope
    }
}

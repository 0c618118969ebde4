@_spi(Testing) import AuthlogClient
import Foundation
import Testing

/// The token answer's `signin_alert` against ``AlertingTokenServer``: reported on the sign-in's result and as
/// ``SessionEvent/unusualSignin(_:)`` right after the sign-in or refresh it is about; never when the answer has
/// none; and a malformed one ignored without failing the sign-in. Each test waits for events, hence the limit.
@Suite(.timeLimit(.minutes(1)))
struct SigninAlertTests {
    static let eventID = "0190f2a0-0000-7000-8000-0000000000f1"
    static let alertJSON = """
        {"event_id": "\(eventID)", "judgements": ["new_device", "impossible_travel", "tor_exit_node"]}
        """
    /// The alert `alertJSON` is, its unknown kind kept as it came.
    static let alert = SigninAlert(
        eventID: eventID,
        judgements: [.newDevice, .impossibleTravel, SigninAlert.Judgement(rawValue: "tor_exit_node")]
    )

    /// A client of `server` with a store of its own, refreshing only when asked.
    static func client(_ server: AlertingTokenServer, _ store: any TokenStore = InMemoryTokenStore()) -> AuthlogClient {
        AuthlogClient(
            baseURL: AlertingTokenServer.baseURL,
            tokenStore: store,
            transport: server,
            configuration: .init(refreshBeforeExpiry: nil)
        )
    }

    @Test func anAlertInTheSigninAnswerComesRightAfterSignedInAndOnTheResult() async throws {
        let server = AlertingTokenServer()
        let client = Self.client(server)
        var events = client.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))
        try server.queueAlert(Self.alertJSON)
        let result = try await client.signIn(with: .dev(subject: "ada"))
        #expect(result.signinAlert == Self.alert)
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: result.tokens.sessionID))
        #expect(await events.next() == .unusualSignin(Self.alert))
        let kinds = try #require(result.signinAlert?.judgements.map(\.rawValue))
        #expect(kinds == ["new_device", "impossible_travel", "tor_exit_node"])
        #expect(result.signinAlert?.eventID == Self.eventID)
    }

    @Test func anAlertInARefreshAnswerComesRightAfterRefreshed() async throws {
        let server = AlertingTokenServer()
        let client = Self.client(server)
        var events = client.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))
        let signedIn = try await client.signIn(with: .dev(subject: "ada"))
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: signedIn.tokens.sessionID))
        try server.queueAlert(Self.alertJSON)
        try await client.refresh()
        #expect(await events.next() == .refreshed(sessionID: signedIn.tokens.sessionID))
        #expect(await events.next() == .unusualSignin(Self.alert))
    }

    /// A refresh the server refuses as unusual (`signin_unusual`, `reauthentication_required`) cannot succeed by
    /// asking again: the tokens are cleared and the app is told to sign in, instead of a loop of refused refreshes.
    @Test(arguments: ["signin_unusual", "reauthentication_required"])
    func aRefreshRefusedAsUnusualSignsOutInsteadOfRetrying(_ code: String) async throws {
        let server = AlertingTokenServer()
        let store = InMemoryTokenStore()
        let client = Self.client(server, store)
        var events = client.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))
        let signedIn = try await client.signIn(with: .dev(subject: "ada"))
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: signedIn.tokens.sessionID))
        server.refuseRefreshes(with: code)
        do {
            try await client.refresh()
            Issue.record("a refused refresh succeeded")
        } catch let error as AuthlogClientError {
            #expect(error.code == .signedOut && error.status == 401)
        }
        #expect(await events.next() == .signedOut(.refusedAsUnusual))
        #expect(try await store.load() == nil)
        #expect(server.received.filter { $0.path == "/v1/token/refresh" }.count == 1, "asked once, not again")
    }

    /// The first sign-in is flagged, the second is not: after the second `signedIn` comes the refresh's event,
    /// no alert.
    @Test func anAnswerWithoutAnAlertRaisesNone() async throws {
        let server = AlertingTokenServer()
        let client = Self.client(server)
        var events = client.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))
        try server.queueAlert(Self.alertJSON)
        let flagged = try await client.signIn(with: .dev(subject: "ada"))
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: flagged.tokens.sessionID))
        #expect(await events.next() == .unusualSignin(Self.alert))
        let plain = try await client.signIn(with: .dev(subject: "ada"))
        #expect(plain.signinAlert == nil)
        try await client.refresh()
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: plain.tokens.sessionID))
        #expect(await events.next() == .refreshed(sessionID: plain.tokens.sessionID))
    }

    /// Each malformed `signin_alert` leaves the sign-in as it would be without one; a well-formed alert on the
    /// next refresh still comes, right after its `refreshed`.
    @Test(arguments: [
        "null", "\"new_device\"", "42", "[]", "{}", #"{"judgements": ["new_device"]}"#,
        #"{"event_id": 7, "judgements": ["new_device"]}"#,
        #"{"event_id": "not-a-uuid", "judgements": ["new_device"]}"#,
        #"{"event_id": "\#(eventID)"}"#,
        #"{"event_id": "\#(eventID)", "judgements": "new_device"}"#,
        #"{"event_id": "\#(eventID)", "judgements": []}"#,
        #"{"event_id": "\#(eventID)", "judgements": ["new_device", 3]}"#,
        #"{"event_id": "\#(eventID)", "judgements": [""]}"#,
    ])
    func aMalformedAlertIsIgnoredAndTheSigninSucceeds(_ malformed: String) async throws {
        let server = AlertingTokenServer()
        let client = Self.client(server)
        var events = client.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))
        try server.queueAlert(malformed)
        let result = try await client.signIn(with: .dev(subject: "ada"))
        #expect(result.signinAlert == nil)
        #expect(try await client.currentTokens() == result.tokens)
        try server.queueAlert(Self.alertJSON)
        try await client.refresh()
        #expect(await events.next() == .signedIn(userID: "user-1", sessionID: result.tokens.sessionID))
        #expect(await events.next() == .refreshed(sessionID: result.tokens.sessionID))
        #expect(await events.next() == .unusualSignin(Self.alert))
    }

    @Test func judgementsCompareWithTheConstantsAndKeepUnknownKinds() {
        let kinds = ["new_device", "new_country", "new_region", "impossible_travel", "hosting_network", "later_kind"]
        let judgements = kinds.map(SigninAlert.Judgement.init(rawValue:))
        #expect(
            judgements.prefix(5) == [.newDevice, .newCountry, .newRegion, .impossibleTravel, .hostingNetwork]
        )
        #expect(judgements.last?.rawValue == "later_kind" && "\(judgements[0])" == "new_device")
    }
}

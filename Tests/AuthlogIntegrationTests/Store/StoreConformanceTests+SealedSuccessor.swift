import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The sealed answer a rotation keeps with the spent token's row for the refresh grace window
/// (`refresh_tokens.successor_sealed`): written with the rotation, one per family, gone with revocation.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func aRotationKeepsItsSealedAnswerUntilTheNextOneOrRevocation(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let first = IssuedToken(session: session, expiresAt: instant(86_400))
        let second = first.next(expiresAt: instant(86_500))
        let third = second.next(expiresAt: instant(86_600))
        try await store.events.append(
            AppendCommand(events: [try user.signedIn(session, at: instant(0)), try user.issued(first, at: instant(0))])
        )
        let boxOne = SHA256Like.random() + SHA256Like.random()
        try await store.events.append(
            AppendCommand(
                events: [try user.refreshed(first, into: second, at: instant(100))],
                expectedVersions: [Person.sessionStream(session): .exactly(2)],
                sealedSuccessor: Self.successor(of: first, sealed: boxOne)
            )
        )
        let spent = try #require(try await store.sessions.refreshToken(hash: first.hash))
        #expect(spent.state == .rotated && spent.rotatedAt == instant(100) && spent.sealedSuccessor == boxOne)
        let live = try #require(try await store.sessions.refreshToken(hash: second.hash))
        #expect(live.rotatedAt == nil && live.sealedSuccessor == nil)

        // A box for a token that is not rotated is not kept.
        try await store.events.append(
            AppendCommand(
                events: [
                    try user.inSession(
                        session,
                        with: SessionReauthenticated(method: "id_token", subjectHash: hashHex("s")),
                        at: instant(150)
                    )
                ],
                sealedSuccessor: Self.successor(of: second, sealed: boxOne)
            )
        )
        #expect(try await store.sessions.refreshToken(hash: second.hash)?.sealedSuccessor == nil)

        // The family's next rotation keeps its own box and drops the older one.
        let boxTwo = SHA256Like.random()
        try await store.events.append(
            AppendCommand(
                events: [try user.refreshed(second, into: third, at: instant(200))],
                sealedSuccessor: Self.successor(of: second, sealed: boxTwo)
            )
        )
        #expect(try await store.sessions.refreshToken(hash: first.hash)?.sealedSuccessor == nil)
        #expect(try await store.sessions.refreshToken(hash: second.hash)?.sealedSuccessor == boxTwo)

        // Revocation drops every box of the family.
        try await store.events.append(try user.reused(first, at: instant(300)))
        for token in [first, second, third] {
            let record = try await store.sessions.refreshToken(hash: token.hash)
            #expect(record?.state == .revoked && record?.sealedSuccessor == nil)
        }
    }

    static func successor(of token: IssuedToken, sealed: [UInt8]) -> SealedSuccessor {
        SealedSuccessor(tokenID: token.tokenID, familyID: token.familyID, sessionID: token.sessionID, sealed: sealed)
    }
}

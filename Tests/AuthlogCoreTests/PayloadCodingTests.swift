import AuthlogCore
import Foundation
import Testing

struct PayloadCodingTests {
    private static let time = Timestamp(microsecondsSinceEpoch: 1_795_266_374_123_456)

    private func roundTrip<Payload: EventPayload>(_ payload: Payload) throws -> Payload {
        let json = try JSONValue(encoding: payload)
        return try json.decode(Payload.self)
    }

    @Test func everyPayloadSurvivesEncodingAndDecoding() throws {
        let id = UUID()
        #expect(
            try self.roundTrip(
                SigninSucceeded(
                    method: "id_token",
                    subjectHash: "ab",
                    authTime: Self.time,
                    nonceCheck: "matched",
                    isNewUser: true,
                    upstreamProvider: "apple.com"
                )
            )
                == SigninSucceeded(
                    method: "id_token",
                    subjectHash: "ab",
                    authTime: Self.time,
                    nonceCheck: "matched",
                    isNewUser: true,
                    upstreamProvider: "apple.com"
                )
        )
        let issued = TokenIssued(
            accessTokenID: id,
            accessTokenExpiresAt: Self.time,
            refreshTokenID: UUID(),
            refreshTokenHash: String(repeating: "a", count: 64),
            familyID: UUID(),
            refreshTokenExpiresAt: Self.time,
            kind: .session
        )
        #expect(try self.roundTrip(issued) == issued)
        let refreshed = TokenRefreshed(
            oldTokenID: UUID(),
            newTokenID: UUID(),
            newTokenHash: "ff",
            familyID: UUID(),
            refreshTokenExpiresAt: Self.time,
            accessTokenID: UUID(),
            accessTokenExpiresAt: Self.time
        )
        #expect(try self.roundTrip(refreshed) == refreshed)
        let deleted = AccountDeleted(providerRevocations: ["apple": .revoked, "kakao": .queued], requestedBy: "user")
        #expect(try self.roundTrip(deleted) == deleted)
        let checkpoint = AuditCheckpointSigned(
            treeSize: 42,
            rootHash: "AA==",
            keyName: "log.example",
            keyHash: "0a0b0c0d"
        )
        #expect(try self.roundTrip(checkpoint) == checkpoint)
        #expect(try self.roundTrip(SessionLoggedOut(scope: .all)) == SessionLoggedOut(scope: .all))
        #expect(
            try self.roundTrip(ProviderConsentRevoked(source: .kakaoUnlink, providerEventID: "e1"))
                == ProviderConsentRevoked(source: .kakaoUnlink, providerEventID: "e1")
        )
    }

    @Test func membersAreStoredInSnakeCase() throws {
        let json = try JSONValue(encoding: TokenReuseDetected(tokenID: UUID(), familyID: UUID()))
        guard case .object(let members) = json else {
            Issue.record("a payload encodes as an object")
            return
        }
        #expect(Set(members.map(\.name)) == ["token_id", "family_id"])
    }

    @Test func decodingReportsTheMissingOrMistypedMember() {
        #expect(throws: DecodingError.self) {
            try JSONValue.object([("token_id", .string("not-a-uuid")), ("family_id", .string(UUID().uuidString))])
                .decode(TokenReuseDetected.self)
        }
        #expect(throws: DecodingError.self) {
            try JSONValue.object([("scope", .string("everything"))]).decode(SessionLoggedOut.self)
        }
        #expect(throws: DecodingError.self) {
            try JSONValue.object([
                ("tree_size", .number("1.5")), ("root_hash", .string("")), ("key_name", .string("")),
                ("key_hash", .string("")),
            ])
            .decode(AuditCheckpointSigned.self)
        }
    }
}

import AuthlogCore
import AuthlogCrypto
import Foundation
import Testing

@testable import AuthlogAccounts

/// Rolling the access-token key without ending a session: the new key signs, the previous keys are still
/// published and accepted until their tokens run out, and a key that was dropped is refused by `kid`.
struct AccessTokenRotationTests {
    static func claims(now: Date = Date()) -> AccessTokenClaims {
        let issued = Int64(now.timeIntervalSince1970)
        return AccessTokenClaims(
            tokenID: UUID(),
            userID: UUID(),
            sessionID: UUID(),
            clientID: nil,
            issuedAt: issued,
            expiresAt: issued + 900
        )
    }

    static func issuer(_ key: PrivateKey, previous: [PrivateKey] = []) throws -> AccessTokenIssuer {
        try AccessTokenIssuer(
            key: key,
            previousKeys: try previous.map { try $0.publicKey() },
            issuer: "https://auth.test",
            audience: "authlog"
        )
    }

    @Test func aTokenOfThePreviousKeyIsAcceptedAfterTheRotationAndNewOnesCarryTheNewKid() throws {
        let old = try PrivateKey.generate(for: .es256)
        let new = try PrivateKey.generate(for: .es256)
        let before = try Self.issuer(old)
        let claims = Self.claims()
        let token = try before.sign(claims)

        let rotated = try Self.issuer(new, previous: [old])
        #expect(try rotated.verify(token) == claims, "a token signed before the rotation still verifies")
        let oldID = try AccessTokenIssuer.keyID(of: old.publicKey())
        let newID = try AccessTokenIssuer.keyID(of: new.publicKey())
        #expect(before.currentKeyID == oldID, "the kid of a key does not change with the rotation")
        #expect(rotated.currentKeyID == newID && newID != oldID)
        #expect(rotated.publicKeys.keys.map(\.kid) == [newID, oldID], "both published, the signing key first")
        let issued = try rotated.sign(Self.claims())
        let header = try JSONParser().parse(Base64URL.decode(String(issued.split(separator: ".")[0])) ?? [])
        #expect(header["kid"]?.stringValue == newID, "new tokens name the new key")
        #expect(throws: AccessTokenError(reason: "unknown_kid"), "the old issuer does not know the new key") {
            try before.verify(issued)
        }
    }

    @Test func aKeyDroppedFromThePreviousKeysIsRefusedByItsKid() throws {
        let old = try PrivateKey.generate(for: .es256)
        let new = try PrivateKey.generate(for: .es256)
        let token = try Self.issuer(old).sign(Self.claims())
        #expect(throws: AccessTokenError(reason: "unknown_kid")) { try Self.issuer(new).verify(token) }
    }

    @Test func aPreviousKeyMustBeES256AndIsPublishedOnce() throws {
        let new = try PrivateKey.generate(for: .es256)
        let ed25519 = try PrivateKey.generate(for: .edDSA)
        #expect(throws: CryptoError.self) { try Self.issuer(new, previous: [ed25519]) }
        let twice = try Self.issuer(new, previous: [new, new])
        #expect(twice.publicKeys.keys.count == 1, "the signing key given again as previous is not listed twice")
    }
}

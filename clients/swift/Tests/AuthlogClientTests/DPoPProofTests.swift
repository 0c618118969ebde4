import Crypto
import Foundation
import Testing

@testable import AuthlogClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The DPoP proofs every key adapter makes (libcrypto on Linux, and the device's CryptoKit code on swift-crypto)
/// verify with an independent check (``DPoPProofCheck``: swift-crypto's ECDSA on the header's `jwk`) and carry the
/// claims RFC 9449 asks for; the keys come back from their stored bytes; `htu` is the URL without query or fragment.
struct DPoPProofTests {
    static let url = URL(string: "https://Auth.Example.COM:443/v1/token/refresh?debug=1#top")

    @Test(arguments: DPoPKeyAdapter.allCases)
    func proofsVerifyAndCarryEveryClaim(adapter: DPoPKeyAdapter) throws {
        let maker = try DPoPProofMaker(key: try adapter.makeKey().key)
        let target = try #require(Self.url.flatMap(DPoPTarget.init))
        let before = Int(Date().timeIntervalSince1970)
        let proof = try maker.proof(method: "POST", target: target, accessToken: "access-1", nonce: "nonce-1")
        let after = Int(Date().timeIntervalSince1970)
        let checked = try DPoPProofCheck.check(proof)
        #expect(checked.htm == "POST")
        #expect(checked.htu == "https://auth.example.com/v1/token/refresh")
        #expect((before...after).contains(checked.iat))
        #expect(checked.ath == DPoPProofCheck.ath("access-1"))
        #expect(checked.nonce == "nonce-1")
        #expect(DPoPProofCheck.decode(checked.jti)?.count == 16)
        // The thumbprint the client reports is RFC 7638's, as computed here from the jwk's x and y.
        #expect(maker.thumbprint == checked.thumbprint)
        #expect(checked.thumbprint.count == 43)
        // Without an access token or a nonce, neither member is there.
        let bare = try DPoPProofCheck.check(
            try maker.proof(method: "GET", target: target, accessToken: nil, nonce: nil)
        )
        #expect(bare.ath == nil && bare.nonce == nil && bare.htm == "GET")
        #expect(!proof.contains("="), "base64url without padding")
    }

    @Test(arguments: DPoPKeyAdapter.allCases)
    func everyProofHasAFreshJTIAndTheSameKey(adapter: DPoPKeyAdapter) throws {
        let maker = try DPoPProofMaker(key: try adapter.makeKey().key)
        let target = try #require(Self.url.flatMap(DPoPTarget.init))
        let proofs = try (0..<50).map { _ in
            try DPoPProofCheck.check(try maker.proof(method: "POST", target: target, accessToken: nil, nonce: nil))
        }
        #expect(Set(proofs.map(\.jti)).count == 50)
        #expect(Set(proofs.map(\.thumbprint)) == [maker.thumbprint])
    }

    /// JOSE's raw `r‖s` pads each half to 32 bytes; OpenSSL's DER drops leading zero bytes. Signatures are made until
    /// several have a short half (about one in 128 does), and every one must verify.
    @Test(arguments: DPoPKeyAdapter.allCases)
    func signaturesWithAShortROrSVerify(adapter: DPoPKeyAdapter) throws {
        let key = try adapter.makeKey().key
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: key.publicKeyRawRepresentation)
        var short = 0
        var made = 0
        while short < 3, made < 20_000 {
            made += 1
            let message = Array("message \(made)".utf8)
            let raw = try key.signature(of: message)
            #expect(raw.count == 64)
            if raw[0] == 0 || raw[32] == 0 { short += 1 }
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: raw)
            guard publicKey.isValidSignature(signature, for: message) else {
                Issue.record("signature \(made) does not verify")
                return
            }
        }
        #expect(short == 3, "\(made) signatures")
    }

    /// A key kept by one adapter is the same key in the other: both keep the 32-byte private scalar.
    @Test func aStoredKeyIsTheSameKeyInEitherAdapter() throws {
        for (maker, reader) in [
            (DPoPKeyAdapter.platform, DPoPKeyAdapter.cryptoKitAPIOnSwiftCrypto),
            (.cryptoKitAPIOnSwiftCrypto, .platform),
        ] {
            let made = try maker.makeKey()
            #expect(made.privateScalar.count == 32)
            let read = try reader.key(privateScalar: made.privateScalar)
            #expect(read.publicKeyRawRepresentation == made.key.publicKeyRawRepresentation)
            let raw = try read.signature(of: [1, 2, 3])
            let publicKey = try P256.Signing.PublicKey(rawRepresentation: made.key.publicKeyRawRepresentation)
            #expect(
                publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: [1, 2, 3])
            )
        }
    }

    /// The platform's new keys differ and come back from what a store keeps; bytes that are no key are refused.
    @Test func platformKeysComeBackFromTheirStoredBytes() throws {
        let first = try PlatformDPoPKey.make()
        let second = try PlatformDPoPKey.make()
        #expect(first != second)
        #expect(!"\(first)".contains(first.representation.base64EncodedString()) && "\(first)".contains("<redacted>"))
        let restored = try PlatformDPoPKey.restore(first)
        #expect(try PlatformDPoPKey.restore(first).publicKeyRawRepresentation == restored.publicKeyRawRepresentation)
        let order = try #require(
            bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        )
        for bad in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xFF, count: 32), [1, 2, 3]] {
            #expect(throws: AuthlogClientError.self) {
                try PlatformDPoPKey.restore(StoredDPoPKey(kind: .p256, representation: Data(bad)))
            }
        }
        #expect(throws: AuthlogClientError.self) {
            try PlatformDPoPKey.restore(
                StoredDPoPKey(kind: .init(rawValue: "rsa"), representation: first.representation)
            )
        }
    }

    @Test func htuLeavesOutQueryFragmentUserAndDefaultPort() {
        let cases: [(String, String?)] = [
            ("http://127.0.0.1:8080/v1/me/activity?after=x#y", "http://127.0.0.1:8080/v1/me/activity"),
            ("HTTPS://Auth.Example.COM:443", "https://auth.example.com/"),
            ("https://auth.example.com:8443/a%20b/c", "https://auth.example.com:8443/a%20b/c"),
            ("http://[::1]:80/x", "http://[::1]/x"),
            ("https://user:secret@api.example.com/p", "https://api.example.com/p"),
            ("ftp://files.example.com/x", nil),
        ]
        for (url, htu) in cases {
            #expect(URL(string: url).flatMap(DPoPTarget.init)?.htu == htu, "\(url)")
        }
        #expect(URL(string: "https://a.example.com/x?y").flatMap(DPoPTarget.init)?.origin == "https://a.example.com")
    }

    @Test func aResourceServersChallengeNamesItsError() {
        let challenges: [(String, String?)] = [
            (
                #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#,
                "use_dpop_nonce"
            ),
            (#"DPoP algs="ES256", error_description="no", error="invalid_dpop_proof""#, "invalid_dpop_proof"),
            ("DPoP error = use_dpop_nonce", "use_dpop_nonce"),
            (#"DPoP algs="ES256""#, nil),
        ]
        for (challenge, error) in challenges {
            #expect(DPoPChallenge.parameter("error", in: challenge) == error, "\(challenge)")
        }
    }

    /// A server's nonce goes only into proofs to that server (its origin), the latest one wins, and a header value
    /// that is no nonce is not kept.
    @Test func noncesAreKeptPerOriginAndOnlyWhenWellFormed() throws {
        let cache = DPoPNonceCache()
        let a = try #require(URL(string: "https://a.example.com/v1/token/refresh"))
        let b = try #require(URL(string: "https://b.example.com/resource"))
        func answer(_ url: URL, _ nonce: String) throws -> HTTPURLResponse {
            try #require(
                HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: ["DPoP-Nonce": nonce])
            )
        }
        cache.record(try answer(a, "first"), for: a)
        cache.record(try answer(a, "second"), for: a)
        cache.record(try answer(b, "with space"), for: b)
        cache.record(try answer(b, #"quote""#), for: b)
        let elsewhere = try #require(URL(string: "https://a.example.com:443/other?x").flatMap(DPoPTarget.init))
        #expect(cache.nonce(for: elsewhere) == "second", "the same origin, another path")
        #expect(cache.nonce(for: try #require(DPoPTarget(b))) == nil)
        #expect(cache.nonce(for: try #require(URL(string: "http://a.example.com/").flatMap(DPoPTarget.init))) == nil)
    }
}

/// The server's clock as its answers' `Date` shows it (``DPoPClock``).
struct DPoPClockTests {
    static func target(_ url: String = "https://auth.example.com/v1/token/refresh") throws -> DPoPTarget {
        let parsed = try #require(URL(string: url))
        return try #require(DPoPTarget(parsed))
    }

    static func answer(date: String?) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "https://auth.example.com/v1/me"))
        return try #require(
            HTTPURLResponse(
                url: url,
                statusCode: 200,
                httpVersion: "HTTP/1.1",
                headerFields: date.map { ["Date": $0] } ?? [:]
            )
        )
    }

    @Test func anHTTPDateIsReadAndAnythingElseIsNot() {
        #expect(DPoPClock.httpDate("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        for text in [
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 PST",
            "Sun, 31 Feb 2026 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "",
        ] {
            #expect(DPoPClock.httpDate(text) == nil, "\(text)")
        }
    }

    @Test func anOffsetOfMinutesIsKeptPerServerAndSecondsAreNot() throws {
        let device = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = DPoPClock(local: { device })
        let target = try Self.target()
        clock.record(try Self.answer(date: "Fri, 15 Jan 2027 08:05:00 GMT"), for: nil)  // 300 s ahead
        #expect(abs(clock.offset(for: target) - 300.5) < 0.01)
        #expect(abs(clock.now(for: target).timeIntervalSince(device) - 300.5) < 0.01)
        #expect(clock.offset(for: try Self.target("https://api.example.net/resource")) == 0, "another server's")
        clock.record(try Self.answer(date: "Fri, 15 Jan 2027 08:00:02 GMT"), for: nil)  // 2 s ahead: none
        #expect(clock.offset(for: target) == 0)
        clock.record(try Self.answer(date: "Sat, 15 Jan 2050 08:00:00 GMT"), for: nil)  // decades: a broken header
        clock.record(try Self.answer(date: "soon"), for: nil)
        #expect(clock.offset(for: target) == 0)
    }
}

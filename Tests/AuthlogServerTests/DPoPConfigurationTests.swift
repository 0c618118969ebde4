import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import Testing

/// The `dpop` section as `serve` and `authlog config check` read it: the defaults, each client's policy, and
/// every bad value refused by its member's name.
struct DPoPConfigurationTests {
    static func configuration(_ section: JSONValue, dataKey: Bool = true) throws -> ServerConfiguration {
        var members: [(name: String, value: JSONValue)] = [("dpop", section)]
        if dataKey { members.append(("data_key", .string(Base64URL.encode(Array(repeating: 3, count: 32))))) }
        return try JSONValue.object(members).decodeStrictly(ServerConfiguration.self)
    }

    @Test func theDefaultsAreOptionalWithoutNonces() throws {
        let settings = try AccountComponents.dpopSettings(of: ServerConfiguration())
        #expect(settings == DPoPSettings())
        #expect(settings.policy(for: "any.app") == .optional && !settings.noncesRequired)
        #expect(settings.maximumAge == 60 && settings.maximumSkew == 15 && settings.nonceRotationSeconds == 300)
    }

    @Test func eachNamedClientHasItsPolicy() throws {
        let settings = try AccountComponents.dpopSettings(
            of: try Self.configuration(
                .members([
                    "policy": .string("off"),
                    "clients": .array([
                        .members(["client_id": .string("com.example.app"), "policy": .string("required")])
                    ]),
                ])
            )
        )
        #expect(settings.policy(for: "com.example.app") == .required)
        #expect(settings.policy(for: "com.example.other") == .off)
        #expect(settings.policy(for: nil) == .off)
    }

    @Test func aBadValueIsRefusedByNameAsConfigCheckDoes() throws {
        let refused: [(JSONValue, Bool, String)] = [
            (.members(["policy": .string("strict")]), true, "dpop.policy"),
            (.members(["maximum_age_seconds": .number("3600")]), true, "dpop.maximum_age_seconds"),
            (.members(["maximum_skew_seconds": .number("301")]), true, "dpop.maximum_skew_seconds"),
            (.members(["nonce_rotation_seconds": .number("5")]), true, "dpop.nonce_rotation_seconds"),
            (.members(["nonces": .bool(true)]), false, "dpop.nonces needs data_key"),
            (
                .members([
                    "clients": .array([
                        .members(["client_id": .string("a"), "policy": .string("off")]),
                        .members(["client_id": .string("a"), "policy": .string("required")]),
                    ])
                ]), true, "names a twice"
            ),
        ]
        for (section, dataKey, message) in refused {
            let configuration = try Self.configuration(section, dataKey: dataKey)
            #expect {
                try AccountComponents.checkDPoP(of: configuration)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        try AccountComponents.checkDPoP(of: try Self.configuration(.members(["nonces": .bool(true)])))
    }

    /// `public_url` is the base of every proof's `htu`: a query would make one proof fit every route.
    @Test func aPublicURLThatCannotBeAProofsBaseIsRefused() throws {
        for bad in ["https://auth.example.com/a?q=1", "auth.example.com", "ftp://auth.example.com", "https://u:p@h/"] {
            #expect(throws: ServerConfiguration.Invalid.self) { try AccountComponents.checkedPublicURL(bad) }
        }
        #expect(
            try AccountComponents.checkedPublicURL("https://auth.example.com/base") == "https://auth.example.com/base"
        )
        #expect(try AccountComponents.checkedPublicURL(nil) == nil)
    }
}

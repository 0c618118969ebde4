import AuthlogCore
import AuthlogServer
import Foundation
import Testing

/// Every member can come from the environment: `AUTHLOG_` and its path, upper-cased, segments joined by `__`;
/// text as written, anything else as JSON; the environment overrides the file.
struct ConfigurationEnvironmentTests {
    static let apple =
        #"{"providers": {"apple": {"client_ids": ["com.example.file"]}}, "rate_limits": {"per_address": {"signin": {"burst": 5}}}}"#

    @Test func aNestedNumberOverridesTheFile() throws {
        let loaded = try ConfigurationFile(Self.apple).load([
            "AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BURST": "20",
            "AUTHLOG_ACCESS_TOKEN__TTL_SECONDS": "600",
            "AUTHLOG_PORT": "8081",
        ])
        #expect(loaded.configuration.rateLimits?.perAddress?.signin?.burst == 20)
        #expect(loaded.configuration.accessToken?.ttlSeconds == 600)
        #expect(loaded.configuration.port == 8081)
        let burst = MemberPath(members: ["rate_limits", "per_address", "signin", "burst"])
        #expect(loaded.source(of: burst) == .environment("AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BURST"))
        #expect(loaded.source(of: MemberPath(members: ["providers", "apple", "client_ids"])) == .file)
        #expect(loaded.source(of: MemberPath(members: ["host"])) == .default)
    }

    @Test func aListIsReadAsJSON() throws {
        let loaded = try ConfigurationFile(Self.apple).load([
            "AUTHLOG_PROVIDERS__APPLE__CLIENT_IDS": #"["com.example.app", "com.example.web"]"#
        ])
        #expect(loaded.configuration.providers?.apple?.clientIDs == ["com.example.app", "com.example.web"])
    }

    @Test func textThatLooksLikeANumberStaysText() throws {
        let loaded = try ConfigurationFile(#"{"providers": {"kakao": {"app_id": "1", "app_keys": ["k"]}}}"#).load([
            "AUTHLOG_PROVIDERS__KAKAO__APP_ID": "123456"
        ])
        #expect(loaded.configuration.providers?.kakao?.appID == "123456")
    }

    @Test func aWholeSectionCanComeFromTheEnvironmentWithoutAFile() throws {
        let loaded = try ServerConfiguration.load(
            path: nil,
            environment: [
                "AUTHLOG_PROVIDERS__GITHUB": #"{"client_id": "Iv1.abc"}"#,
                "AUTHLOG_PROVIDERS__GITHUB__API_URL": "https://github.example.com/api/v3",
            ]
        )
        #expect(loaded.configuration.providers?.github?.clientID == "Iv1.abc")
        #expect(loaded.configuration.providers?.github?.apiURL == "https://github.example.com/api/v3")
    }

    @Test func anUnknownPathBelowAMemberIsAnUnknownKeyNamingTheVariable() throws {
        let file = try ConfigurationFile("{}")
        #expect(
            file.refusal(["AUTHLOG_RATE_LIMITS__SIGNN": "3"])
                == "unknown key rate_limits.signn in AUTHLOG_RATE_LIMITS__SIGNN"
        )
        #expect(
            file.refusal(["AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BRUST": "3"])
                == "unknown key rate_limits.per_address.signin.brust in AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BRUST; did you mean `burst`?"
        )
    }

    @Test func aWrongTypeNamesTheVariable() throws {
        let file = try ConfigurationFile("{}")
        #expect(file.refusal(["AUTHLOG_PORT": "80x"]) == #"port (AUTHLOG_PORT) must be a whole number, got text "80x""#)
    }

    @Test func otherVariablesAreNotConfiguration() throws {
        let loaded = try ConfigurationFile("{}").load([
            "AUTHLOG_TEST_DATABASE_URL": "postgres://localhost/test",
            "AUTHLOG_FUZZ_SEED": "7",
            "AUTHLOG_CHECKPOINT_KEY": "-----BEGIN PRIVATE KEY-----",
            "AUTHLOG_PORT": "",
        ])
        #expect(loaded.configuration.port == nil, "an empty value is no value")
    }

    @Test func theSecretVariablesOfOldStillApply() throws {
        let file = try ConfigurationFile(
            #"{"introspection_clients": [{"id": "orders-api"}], "providers": {"oidc": {"corp": {"issuer": "https://sso.example.com", "client_ids": ["a"]}}, "github": {"client_id": "Iv1"}}}"#
        )
        let loaded = try file.load([
            "AUTHLOG_EVENT_KEY": "event-key",
            "AUTHLOG_DATA_KEY": "data-key",
            "AUTHLOG_CLIENT_SECRET_ORDERS_API": "orders-secret",
            "AUTHLOG_CORP_CLIENT_SECRET": "corp-secret",
            "AUTHLOG_GITHUB_CLIENT_SECRET": "github-secret",
            "AUTHLOG_KAKAO_ADMIN_KEY": "no kakao section: ignored",
            "AUTHLOG_DATABASE_URL": "postgres://authlog:hunter2@db.example.com/authlog",
            "AUTHLOG_PREVIOUS_DATA_KEYS": #"["old-data-key", "older-data-key"]"#,
        ])
        let configuration = loaded.configuration
        #expect(configuration.log?.eventKey == "event-key")
        #expect(configuration.dataKey == "data-key")
        #expect(configuration.introspectionClients?.first?.secret == "orders-secret")
        #expect(configuration.providers?.oidc?["corp"]?.clientSecret == "corp-secret")
        #expect(configuration.providers?.github?.clientSecret == "github-secret")
        #expect(configuration.providers?.kakao == nil)
        #expect(configuration.databaseURL == "postgres://authlog:hunter2@db.example.com/authlog")
        let members = Dictionary(uniqueKeysWithValues: loaded.effectiveMembers.map { ($0.path.description, $0) })
        #expect(members["log.event_key"]?.value == #""****""#)
        #expect(members["log.event_key"]?.source == .environment("AUTHLOG_EVENT_KEY"))
        #expect(members["database_url"]?.value == #""postgres://authlog:****@db.example.com/authlog""#)
        #expect(members["introspection_clients[0].secret"]?.value == #""****""#)
        #expect(members["introspection_clients[0].secret"]?.source == .environment("AUTHLOG_CLIENT_SECRET_ORDERS_API"))
        #expect(members["introspection_clients[0].id"]?.source == .file)
        #expect(configuration.previousDataKeys == ["old-data-key", "older-data-key"])
        #expect(members["previous_data_keys"]?.value == #"["****","****"]"#, "a list of secrets is masked whole")
        #expect(members["port"]?.value == "8080")
        #expect(members["port"]?.source == .default)
    }
}

/// Settings that start but leave a promised judgement out, which `serve` warns about.
struct PlacesWithoutDataKeyTests {
    @Test func aCityFileWithoutADataKeyIsFlaggedSinceNoLocationCanBeKept() throws {
        let city = ["AUTHLOG_PLACES__CITY_DATABASE": "/srv/GeoLite2-City.mmdb"]
        let key = ["AUTHLOG_DATA_KEY": String(repeating: "A", count: 43)]
        func flagged(_ environment: [String: String]) throws -> Bool {
            try ServerConfiguration.load(path: nil, environment: environment).configuration.placesKeepNoLocation
        }
        #expect(try flagged(city))
        #expect(try flagged(city.merging(key) { $1 }) == false)
        #expect(try flagged(city.merging(["AUTHLOG_ALERTS__ENABLED": "false"]) { $1 }) == false)
        #expect(try flagged([:]) == false, "without places there is nothing to keep")
    }
}

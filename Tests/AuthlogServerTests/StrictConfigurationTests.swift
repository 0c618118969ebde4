import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// The configuration file is read strictly: an unknown key anywhere is named with its path and the nearest
/// member, a value of the wrong type in plain words, a missing required member by name.
struct StrictConfigurationTests {
    @Test func aMisspeltTopLevelKeyIsNamedWithTheNearestMember() throws {
        let file = try ConfigurationFile(#"{"prot": 8081}"#)
        #expect(file.refusal() == "unknown key prot in \(file.path); did you mean `port`?")
    }

    @Test func aMisspeltNestedKeyIsNamedWithItsFullPath() throws {
        let file = try ConfigurationFile(#"{"rate_limits": {"per_address": {"signin": {"brust": 20}}}}"#)
        #expect(
            file.refusal() == "unknown key rate_limits.per_address.signin.brust in \(file.path); did you mean `burst`?"
        )
    }

    @Test func aMisspeltKeyInAnArrayElementIsNamedWithItsIndex() throws {
        let file = try ConfigurationFile(
            #"{"introspection_clients": [{"id": "orders-api", "secret": "s"}, {"id": "billing", "secrt": "s"}]}"#
        )
        #expect(file.refusal() == "unknown key introspection_clients[1].secrt in \(file.path); did you mean `secret`?")
    }

    @Test func aKeyFarFromEveryMemberGetsNoSuggestion() throws {
        let file = try ConfigurationFile(#"{"log": {"colour": "blue"}}"#)
        #expect(file.refusal() == "unknown key log.colour in \(file.path)")
    }

    @Test func providerNamesAreFreeButTheirMembersAreChecked() throws {
        let file = try ConfigurationFile(
            #"{"providers": {"oidc": {"corp_sso": {"issuer": "https://sso.example.com", "client_ids": ["a"]}}}}"#
        )
        let loaded = try file.load()
        #expect(loaded.configuration.providers?.oidc?.keys.sorted() == ["corp_sso"], "the name is kept as written")
        let misspelt = try ConfigurationFile(
            #"{"providers": {"oidc": {"corp": {"issuer": "https://sso.example.com", "client_ids": ["a"], "clinet_secret": "s"}}}}"#
        )
        #expect(
            misspelt.refusal()
                == "unknown key providers.oidc.corp.clinet_secret in \(misspelt.path); did you mean `client_secret`?"
        )
    }

    @Test func textForAWholeNumberIsRefusedInPlainWords() throws {
        let file = try ConfigurationFile(#"{"port": "8080x"}"#)
        #expect(file.refusal() == #"port must be a whole number, got text "8080x""#)
        let fraction = try ConfigurationFile(#"{"connections": {"maximum_connections": 10.5}}"#)
        #expect(fraction.refusal() == "connections.maximum_connections must be a whole number, got the number 10.5")
    }

    @Test func aNumberForAListOfTextIsRefusedInPlainWords() throws {
        let file = try ConfigurationFile(#"{"providers": {"apple": {"client_ids": 42}}}"#)
        #expect(file.refusal() == "providers.apple.client_ids must be a list of text, got the number 42")
        let element = try ConfigurationFile(#"{"providers": {"apple": {"client_ids": ["com.example.app", 7]}}}"#)
        #expect(element.refusal() == "providers.apple.client_ids[1] must be text, got the number 7")
    }

    @Test func aMissingRequiredMemberIsNamed() throws {
        let file = try ConfigurationFile(#"{"providers": {"apple": {"team_id": "ABCDE12345"}}}"#)
        #expect(file.refusal() == "providers.apple.client_ids is missing; it must be a list of text")
    }

    @Test func aMisspeltRequiredMemberIsNamedAsTheMisspelling() throws {
        let file = try ConfigurationFile(#"{"providers": {"apple": {"clientids": ["com.example.app"]}}}"#)
        #expect(file.refusal() == "unknown key providers.apple.clientids in \(file.path); did you mean `client_ids`?")
    }

    @Test func anObjectWhereAValueBelongsIsRefused() throws {
        let file = try ConfigurationFile(#"{"rate_limits": {"enabled": "yes"}}"#)
        #expect(file.refusal() == #"rate_limits.enabled must be true or false, got text "yes""#)
        let notObject = try ConfigurationFile(#"{"rate_limits": [1]}"#)
        #expect(notObject.refusal() == "rate_limits must be an object, got a list")
    }

    @Test func theExampleConfigurationLoadsStrictly() throws {
        let loaded = try ServerConfiguration.load(
            path: RepositoryFiles.url("deploy/authlog.example.json").path,
            environment: [:]
        )
        #expect(loaded.configuration.providers?.apple?.clientIDs == ["com.example.app", "com.example.web"])
        #expect(loaded.configuration.rateLimits?.perAPIKey?.burst == 200, "per_api_key reads perAPIKey's custom key")
    }

    @Test func everyDefaultNamesAMemberOfTheConfiguration() throws {
        var document = "{}"
        for (path, value) in ConfigurationDefaults.members(for: ServerConfiguration()) {
            document = try Self.setting(value.canonicalText, at: path.description, in: document)
        }
        let file = try ConfigurationFile(document)
        #expect(file.refusal() == nil)
    }

    /// `json` with `value` (JSON text) at the dotted `path`, objects made on the way.
    static func setting(_ value: String, at path: String, in json: String) throws -> String {
        var object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        func set(_ names: ArraySlice<Substring>, in object: inout [String: Any]) throws {
            guard let name = names.first.map(String.init) else { return }
            if names.count == 1 {
                object[name] = try JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
                return
            }
            var child = object[name] as? [String: Any] ?? [:]
            try set(names.dropFirst(), in: &child)
            object[name] = child
        }
        try set(path.split(separator: ".")[...], in: &object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import Foundation
import Testing

/// The `sinks` setting is checked member by member, its secret comes from the environment and is masked, and
/// a batch's body and `Signature` are what docs/operations.md tells a receiver to check.
struct SinkSettingsAndPayloadTests {
    private static let secret = String(repeating: "s", count: 40)

    private func sinks(_ json: String, _ environment: [String: String] = [:]) throws -> SinkSettings {
        try SinkSettings(configuration: try ConfigurationFile(json).load(environment).configuration)
    }

    /// Why `json`'s sinks are refused, or nil.
    private func refusal(_ json: String, _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try self.sinks(json, environment)
            return nil
        } catch let invalid as ServerConfiguration.Invalid {
            return invalid.description
        } catch {
            return "\(error)"
        }
    }

    @Test func aSinkGetsItsDefaultsAndItsSecretFromTheEnvironment() throws {
        let settings = try self.sinks(
            #"{"sinks": [{"name": "siem", "type": "http", "url": "https://siem.example.com/in"}]}"#,
            ["AUTHLOG_SINKS__0__SECRET": Self.secret]
        )
        let sink = try #require(settings.sinks.first)
        #expect(sink.name == "siem" && sink.url == "https://siem.example.com/in")
        #expect(sink.secret == Array(Self.secret.utf8))
        #expect(sink.format == .export && sink.batchSize == 100)
        #expect(sink.timeout == .seconds(10) && sink.maximumRetryDelay == .seconds(300))
        let loaded = try ConfigurationFile(
            #"{"sinks": [{"name": "siem", "type": "http", "url": "https://siem.example.com/in"}]}"#
        ).load(["AUTHLOG_SINKS__0__SECRET": Self.secret, "AUTHLOG_SINKS__0__BATCH_SIZE": "50"])
        let members = Dictionary(uniqueKeysWithValues: loaded.effectiveMembers.map { ($0.path.description, $0) })
        #expect(members["sinks[0].secret"]?.value == #""****""#)
        #expect(members["sinks[0].secret"]?.source == .environment("AUTHLOG_SINKS__0__SECRET"))
        #expect(members["sinks[0].batch_size"]?.value == "50", "a number read as JSON from its variable")
        #expect(try SinkSettings(configuration: loaded.configuration).sinks.first?.batchSize == 50)
        #expect(
            self.refusal(#"{"sinks": []}"#, ["AUTHLOG_SINKS__0__SECRET": Self.secret])
                == "AUTHLOG_SINKS__0__SECRET names element 0 of a list that has 0 elements"
        )
    }

    @Test func eachWrongMemberIsNamed() throws {
        let secret = Self.secret
        let cases: [(String, String)] = [
            (
                #"{"name": "Siem", "type": "http", "url": "https://a.example", "secret": "\#(secret)"}"#,
                "sinks[0].name must be 1 to 64 of a-z 0-9 _ -, starting with a letter or digit"
            ),
            (
                #"{"name": "siem", "type": "syslog", "url": "https://a.example", "secret": "\#(secret)"}"#,
                "sinks[0].type must be http, got syslog"
            ),
            (
                #"{"name": "siem", "type": "http", "url": "ftp://a.example", "secret": "\#(secret)"}"#,
                "sinks[0].url must be an http(s) URL"
            ),
            (
                #"{"name": "siem", "type": "http", "url": "https://a.example", "secret": "short"}"#,
                "sinks[0].secret must be 32 to 1,024 characters (AUTHLOG_SINKS__0__SECRET)"
            ),
            (
                #"{"name": "siem", "type": "http", "url": "https://a.example", "secret": "\#(secret)", "format": "cef"}"#,
                "sinks[0].format must be export or ocsf"
            ),
            (
                #"{"name": "siem", "type": "http", "url": "https://a.example", "secret": "\#(secret)", "batch_size": 0}"#,
                "sinks[0].batch_size must be 1 to 1000"
            ),
        ]
        for (sink, message) in cases {
            #expect(self.refusal(#"{"sinks": [\#(sink)]}"#) == message)
        }
        let twice = #"{"name": "siem", "type": "http", "url": "https://a.example", "secret": "\#(secret)"}"#
        #expect(self.refusal(#"{"sinks": [\#(twice), \#(twice)]}"#) == "sinks[1].name: another sink is named siem")
    }

    @Test func theSignatureIsTheHMACOfTheTimestampADotAndTheBody() throws {
        let body = Array("{\"position\":1}\n".utf8)
        let secret = Array(Self.secret.utf8)
        let header = SinkPayload.signature(of: body, secret: secret, timestamp: 1_764_000_000)
        let expected = try HMACSHA256.authenticationCode(for: Array("1764000000.".utf8) + body, key: secret)
        #expect(header == "t=1764000000,v1=\(Hex.encode(expected))")
        #expect(header != SinkPayload.signature(of: body + [0x0A], secret: secret, timestamp: 1_764_000_000))
    }

    @Test func anOCSFLineCarriesTheMappingAndTheWholeEvent() throws {
        let line =
            #"{"position":7,"event_id":"0199a0a0-0000-7000-8000-000000000007","stream":"session-1","stream_version":1,"type":"signin.failed","occurred_at":"2026-11-27T09:00:00.250000Z","outcome":"failure","reason":"expired","provider":"apple","ip":"203.0.113.9","user_agent":"App/1","data":{},"schema_version":1,"recorded_at":"2026-11-27T09:00:00.300000Z","digest":"00","leaf_hash":"00"}"#
        let body = SinkPayload.body([OCSFEvent.line(exportLine: line, evidence: nil)])
        #expect(body.last == 0x0A && body.filter { $0 == 0x0A }.count == 1)
        let event = try JSONParser().parse(Array(body.dropLast()))
        #expect(event["class_uid"]?.integerValue == 3002)
        #expect(event["activity_id"]?.integerValue == 1)
        #expect(event["type_uid"]?.integerValue == 300_201)
        #expect(event["status_id"]?.integerValue == 2 && event["status_detail"]?.stringValue == "expired")
        #expect(event["time"]?.integerValue == 1_795_770_000_250)
        #expect(event["metadata"]?["sequence"]?.integerValue == 7)
        #expect(event["metadata"]?["version"]?.stringValue == "1.8.0")
        #expect(event["src_endpoint"]?["ip"]?.stringValue == "203.0.113.9")
        #expect(event["unmapped"]?["event_id"]?.stringValue == "0199a0a0-0000-7000-8000-000000000007")
        #expect(event["metadata"]?["event_code"]?.stringValue == "signin.failed")
        #expect(event["auth_protocol_id"]?.integerValue == 4 && event["user"]?["uid"]?.stringValue == "unknown")
        #expect(SinkPayload.body([line]) == Array((line + "\n").utf8))
    }
}

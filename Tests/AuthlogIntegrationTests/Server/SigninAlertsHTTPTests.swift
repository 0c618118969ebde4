import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Logging
import Testing

/// Sign-in alerts over HTTP and PostgreSQL, with real MaxMind DB files written by MaxMind's own Perl writer: a
/// user signing in from two addresses of the file, what the events, the user's activity, the sink and `/metrics`
/// say; `X-Forwarded-For` believed only from trusted proxies; a file replaced while serving; a bad file at start.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SigninAlertsHTTPTests {
    static let seoul = "175.223.10.5"
    static let tokyo = "126.0.0.9"
    static let device = "u0Lh4PqS1kC7v9ZxYw3T2bNfGmRdEaJc5H6iKo8pQrA"

    static func start(_ files: PlaceFilesFixture, trusted: [String] = ["127.0.0.1"]) async throws -> ServerHarness {
        try await ServerHarness.start { configuration in
            configuration.trustedProxies = trusted
            var places = ServerConfiguration.PlacesSettings()
            places.cityDatabase = files.city
            places.asnDatabase = files.asn
            configuration.places = places
        }
    }

    static func signIn(
        _ server: ServerHarness,
        from address: String,
        device: String? = device
    ) async throws
        -> HTTPTestClient.Answer
    {
        var headers = [
            ("User-Agent", "ExampleApp/2.0 CFNetwork/1490 Darwin/23.2.0 (iPhone)"), ("X-Forwarded-For", address),
        ]
        if let device { headers.append(("Authlog-Device-Id", device)) }
        return try await server.post("/v1/signin/dev", .members(["subject": .string("ana")]), headers: headers)
    }

    @Test func aUserFromTwoAddressesOfTheFileIsFlaggedInTheActivityTheSinkAndTheMetrics() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let server = try await Self.start(files)
        defer { Task { await server.stop() } }
        let home = try await Self.signIn(server, from: Self.seoul)
        #expect(home.status == 200 && home.json["signin_alert"] == nil)
        let away = try await Self.signIn(server, from: Self.tokyo)
        #expect(away.status == 200)
        let alert = try #require(away.json["signin_alert"])
        #expect(alert["judgements"] == .array([.string("new_country"), .string("impossible_travel")]))

        let succeeded = try await server.events(ofType: "signin.succeeded")
        #expect(succeeded.map { $0.data["country"]?.stringValue } == ["KR", "JP"])
        #expect(succeeded.map { $0.data["region"]?.stringValue } == ["11", "13"])
        #expect(succeeded.allSatisfy { $0.data["sealed_place"]?.stringValue != nil && $0.data["device_key"] != nil })
        #expect(
            succeeded.allSatisfy {
                !$0.data.canonicalText.contains("Seoul") && !$0.data.canonicalText.contains(Self.device)
            }
        )
        let flagged = try #require(try await server.events(ofType: "signin.flagged").first)
        #expect(flagged.stream == "user-\(try #require(flagged.userID).lowercased)")
        #expect(flagged.reason == "impossible_travel" && flagged.ip == Self.tokyo)
        // The answer's receipts name the sign-in judged and the alert: both of the same command.
        let receipts = away.json["event_ids"]?.arrayValue ?? []
        #expect(receipts.contains(try #require(flagged.data["judged_event_id"])))
        #expect(receipts.contains(try #require(alert["event_id"])))
        #expect(flagged.data["judgements"]?.arrayValue?.last?["kilometres"] != nil)

        // The user's activity marks the entry, the sink receives it, /metrics counts it.
        let session = try away.signedIn()
        let activity = try await server.send("GET", "/v1/me/activity", as: session).json["activity"]?.arrayValue ?? []
        let entry = try #require(activity.first { $0["type"]?.stringValue == "signin.flagged" })
        #expect(entry["event_id"] == alert["event_id"])
        #expect(entry["alert"]?["decision"]?.stringValue == "recorded")
        #expect(entry["alert"]?["country"]?.stringValue == "JP")
        let delivered = String(decoding: try await server.deliverToSink(format: "export"), as: UTF8.self)
        #expect(delivered.contains("\"type\":\"signin.flagged\""))
        #expect(delivered.contains("\"impossible_travel\""))
        // The report and the dashboard view count each judgement by decision, from the roll-ups the writer fed
        // and, recounted from the events, the same.
        let connection = try await server.database.connect()
        for recount in [false, true] {
            if recount { try await connection.execute("SELECT authlog.recount_reports()") }
            let report = try await ReportQuery(
                kind: .alerts,
                since: .now().adding(seconds: -3_600),
                until: .now().adding(seconds: 60),
                dimensions: [.reason]
            ).run(on: connection)
            #expect(
                report.header == ["judgement", "recorded", "reauthenticated", "reauthentication_required", "denied"]
            )
            #expect(
                report.rows == [
                    Report.Row(keys: ["impossible_travel"], values: [1, 0, 0, 0]),
                    Report.Row(keys: ["new_country"], values: [1, 0, 0, 0]),
                ]
            )
            let view = try await connection.query(
                "SELECT judgement, decision, sum(alerts)::bigint FROM dashboard.signin_alerts_hourly GROUP BY 1, 2 ORDER BY 1"
            ).rows.map {
                "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(Int64.self, at: 2))"
            }
            #expect(view == ["impossible_travel recorded 1", "new_country recorded 1"])
        }
        let metrics = String(decoding: try await server.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("authlog_signin_judgements_total{kind=\"impossible_travel\",decision=\"recorded\"} 1"))
        // "Not me" on the alert ends every session.
        let report = try await server.send(
            "POST",
            "/v1/me/activity/\(entry["event_id"]?.stringValue ?? "")/not-me",
            as: session
        )
        #expect(report.status == 200 && report.json["sessions_ended"]?.arrayValue?.count == 2)
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let server = try await Self.start(files, trusted: ["10.9.9.9"])
        defer { Task { await server.stop() } }
        _ = try await Self.signIn(server, from: Self.seoul)
        let away = try await Self.signIn(server, from: Self.tokyo)
        #expect(away.status == 200 && away.json["signin_alert"] == nil)
        let succeeded = try await server.events(ofType: "signin.succeeded")
        #expect(succeeded.allSatisfy { $0.ip == "127.0.0.1" && $0.data["country"] == nil })
    }

    @Test func aFileReplacedWhileServingPlacesTheNextSigninAfterTheReload() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let server = try await Self.start(files)
        defer { Task { await server.stop() } }
        _ = try await Self.signIn(server, from: Self.seoul)
        // The operator's monthly update moves the network to Busan; the timer (or SIGHUP) reloads it.
        let replacement = files.directory.appendingPathComponent("next.mmdb").path
        try files.write(
            city: replacement,
            asn: files.directory.appendingPathComponent("next-asn.mmdb").path,
            moved: true
        )
        try FileManager.default.removeItem(atPath: files.city)
        try FileManager.default.moveItem(atPath: replacement, toPath: files.city)
        let places = try #require(server.components.account.places)
        #expect(places.reload().count == 1)
        let moved = try await Self.signIn(server, from: Self.seoul)
        #expect(moved.json["signin_alert"]?["judgements"]?.arrayValue?.first == .string("new_region"))
        #expect(try await server.events(ofType: "signin.succeeded").last?.data["region"]?.stringValue == "26")
    }

    @Test func aMissingOrCorruptFileAtStartIsAnErrorNamingThePath() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let corrupt = files.directory.appendingPathComponent("corrupt.mmdb").path
        try Data("not a maxmind db".utf8).write(to: URL(fileURLWithPath: corrupt))
        for path in [corrupt, files.directory.appendingPathComponent("missing.mmdb").path] {
            var configuration = ServerConfiguration()
            var places = ServerConfiguration.PlacesSettings()
            places.cityDatabase = path
            configuration.places = places
            #expect { try AccountComponents.placeLookup(of: configuration) } throws: { error in
                "\(error)".hasPrefix("places.city_database \(path): ")
            }
        }
    }
}

import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `authlog serve` with the places files of sign-in alerts, as its own OS process: a corrupt file at start is
/// exit 2 naming the setting and the path (and `authlog config check` says so too); a file replaced while serving is reopened on SIGHUP and places the
/// next sign-in.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ServePlacesCommandTests {
    @Test func aCorruptOrMissingFileAtStartExitsTwoNamingThePath() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let database = try await TestDatabase.make()
        let corrupt = files.directory.appendingPathComponent("corrupt.mmdb").path
        try Data(repeating: 0x2A, count: 4096).write(to: URL(fileURLWithPath: corrupt))
        for (path, problem) in [
            (corrupt, "not a MaxMind DB file"),
            (files.directory.appendingPathComponent("gone.mmdb").path, "cannot be read"),
            (files.asn, "is a GeoLite2-ASN file, not a city or country file"),
        ] {
            let run = try await CLIProcess.run(
                ["serve", "--dev", "--port", "0"],
                databaseURL: database.conninfo,
                environment: ["AUTHLOG_PLACES__CITY_DATABASE": path]
            )
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("places.city_database \(path): \(problem)"), "\(run.stderr)")
            // `authlog config check` refuses it the same way, before any server is started.
            let check = try await CLIProcess.run(
                ["config", "check"],
                databaseURL: database.conninfo,
                environment: ["AUTHLOG_PLACES__CITY_DATABASE": path]
            )
            #expect(check.status == 2 && check.stderr.contains("places.city_database \(path): \(problem)"))
        }
    }

    @Test func sighupReopensAReplacedFile() async throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let database = try await TestDatabase.make()
        let server = try await ServeProcess.start(
            database: database,
            configuration: .members([
                "trusted_proxies": .array([.string("127.0.0.1")]),
                "places": .members(["city_database": .string(files.city)]),
            ])
        )
        defer { server.stop() }
        let client = HTTPTestClient(baseURL: server.baseURL)
        let headers = [("X-Forwarded-For", "175.223.10.5"), ("User-Agent", "Places/1.0")]
        #expect(
            try await client.post("/v1/signin/dev", .members(["subject": .string("ana")]), headers: headers).status
                == 200
        )
        // The monthly update: the new file written beside the old and renamed over it, then SIGHUP.
        let next = files.directory.appendingPathComponent("next.mmdb").path
        try files.write(city: next, asn: files.directory.appendingPathComponent("next-asn.mmdb").path, moved: true)
        #expect(rename(next, files.city) == 0)
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = ContinuousClock.now + .seconds(30)
        var log = ""
        while ContinuousClock.now < deadline, !log.contains("places file reloaded") {
            try await Task.sleep(for: .milliseconds(50))
            log = (try? String(contentsOfFile: server.logFile, encoding: .utf8)) ?? ""
        }
        #expect(log.contains("SIGHUP: reloading the places files"))
        #expect(log.contains("places file reloaded"), "\(log.suffix(2_000))")
        let moved = try await client.post("/v1/signin/dev", .members(["subject": .string("ana")]), headers: headers)
        #expect(moved.json["signin_alert"]?["judgements"] == .array([.string("new_region")]))
        #expect(server.process.isRunning, "SIGHUP does not stop the server")
    }

    /// `systemctl reload authlog` sends SIGHUP whether or not places are configured: it must never stop the server.
    @Test func sighupWithoutPlacesFilesLeavesTheServerRunning() async throws {
        let database = try await TestDatabase.make()
        let server = try await ServeProcess.start(database: database)
        defer { server.stop() }
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = ContinuousClock.now + .seconds(30)
        var log = ""
        while ContinuousClock.now < deadline, !log.contains("SIGHUP: nothing to reload") {
            try await Task.sleep(for: .milliseconds(50))
            log = (try? String(contentsOfFile: server.logFile, encoding: .utf8)) ?? ""
        }
        #expect(log.contains("SIGHUP: nothing to reload (no places.city_database)"))
        #expect(server.process.isRunning)
        #expect(try await HTTPTestClient(baseURL: server.baseURL).send("GET", "/healthz").status == 200)
    }
}

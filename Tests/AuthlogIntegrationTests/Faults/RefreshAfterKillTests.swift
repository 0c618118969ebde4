import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Faults {
    /// A refresh whose answer was lost because `authlog serve` was SIGKILLed between the database committing the
    /// rotation and the server answering: the app's retry with the same token, to a restarted server, gets the
    /// very pair the lost answer held, from the sealed successor the rotation committed.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct RefreshAfterKillTests {
        @Test(.timeLimit(.minutes(2)))
        func aRetryAfterTheServerDiedBetweenCommitAndAnswerGetsTheSamePair() async throws {
            let database = try await TestDatabase.make()
            let configuration = JSONValue.object([("refresh_token", .object([("reuse_grace_seconds", .number("60"))]))])
            let first = try await ServeProcess.start(database: database, configuration: configuration)
            let signin = try await HTTPTestClient(baseURL: first.baseURL)
                .post("/v1/signin/dev", .object([("subject", .string("alice"))]))
            let token = try #require(signin.json["refresh_token"]?.stringValue)

            // The rotation's COMMIT waits in a deferred trigger for a lock this test holds, so the server is killed
            // while the database is committing: it never learns the outcome, let alone answers.
            let admin = try await database.connect()
            try await admin.execute(
                """
                CREATE FUNCTION public.hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
                CREATE CONSTRAINT TRIGGER hold_rotation AFTER UPDATE ON authlog.refresh_tokens
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
                    WHEN (OLD.state = 'active' AND NEW.state = 'rotated') EXECUTE FUNCTION public.hold_commit();
                SELECT pg_advisory_lock(4242);
                """
            )
            let lost = Task {
                try? await HTTPTestClient(baseURL: first.baseURL)
                    .post("/v1/token/refresh", .object([("refresh_token", .string(token))]))
            }
            try await Self.waitUntil("the rotation is committing") { try await Self.heldCommits(database) == 1 }
            first.kill()
            let answer = await lost.value
            #expect(answer?.status != 200, "the answer was lost with the server")
            try await admin.execute("SELECT pg_advisory_unlock(4242)")
            try await Self.waitUntil("the rotation is committed") {
                try await Self.count(database, type: "token.refreshed") == 1
            }
            try await admin.execute("DROP TRIGGER hold_rotation ON authlog.refresh_tokens")
            let rotation = try await Self.committedRotation(in: database)

            // The app retries with the same token against a fresh server.
            let second = try await ServeProcess.start(database: database, configuration: configuration)
            defer { second.stop() }
            let client = HTTPTestClient(baseURL: second.baseURL)
            let retry = try await client.post("/v1/token/refresh", .object([("refresh_token", .string(token))]))
            #expect(retry.status == 200, "\(retry.json)")
            let pair = try #require(retry.json["refresh_token"]?.stringValue)
            #expect(Hex.encode(SHA256.hash(Array(pair.utf8))) == rotation.newTokenHash, "the pair the rotation issued")
            #expect(Self.jti(of: retry.json["access_token"]?.stringValue) == rotation.accessTokenID.lowercased())
            let again = try await client.post("/v1/token/refresh", .object([("refresh_token", .string(token))]))
            #expect(again.json["refresh_token"] == retry.json["refresh_token"])
            #expect(again.json["access_token"] == retry.json["access_token"])
            #expect(try await Self.count(database, type: "token.refreshed") == 1)
            #expect(try await Self.count(database, type: "token.refresh_replayed") == 2)
            #expect(try await Self.count(database, type: "token.reuse_detected") == 0)
            // The pair is live: the session goes on.
            #expect(
                try await client.post("/v1/token/refresh", .object([("refresh_token", .string(pair))])).status == 200
            )
        }

        /// The one `token.refreshed` the database holds (committed; sealed or not).
        static func committedRotation(
            in database: TestDatabase
        ) async throws -> (newTokenHash: String, accessTokenID: String) {
            let rows = try await database.connect().query(
                "SELECT data->>'new_token_hash', data->>'access_token_id' FROM authlog.event_records WHERE type = 'token.refreshed'"
            )
            #expect(rows.rows.count == 1, "the rotation committed although its server died")
            let row = try #require(rows.rows.first)
            return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1))
        }

        /// Backends of the test's database waiting for the lock that holds the rotation's commit.
        static func heldCommits(_ database: TestDatabase) async throws -> Int64 {
            try await database.scalar(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database()
                """
            )
        }

        static func count(_ database: TestDatabase, type: String) async throws -> Int64 {
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = \(type)")
        }

        /// The `jti` of an access token, read without checking its signature.
        static func jti(of token: String?) -> String? {
            guard let token else { return nil }
            let parts = token.split(separator: ".")
            guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
                let claims = try? JSONParser().parse(payload)
            else { return nil }
            return claims["jti"]?.stringValue
        }

        /// Polls `condition` every 20 ms for up to 60 s.
        static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
            for _ in 0..<3_000 {
                if try await condition() { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("timed out waiting until \(what)")
        }
    }
}

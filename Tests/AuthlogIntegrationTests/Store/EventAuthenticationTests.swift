import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// Events authenticated at the source: a database owner without the event key cannot have a forged event
/// sealed (the sealer refuses it, records the refusal and seals everything else), nor slip one past `verify`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventAuthenticationTests {
    private static func authenticator() throws -> EventAuthenticator {
        try EventAuthenticator(key: SecureRandom.bytes(count: 32))
    }

    /// A forged copy of the `signin.succeeded` `template` in a stream of its own (its digest right) put into
    /// `event_records` and the queue, once without a MAC and once with a made-up one.
    private func forge(_ database: TestDatabase, like template: RecordedEvent) async throws -> [UUID] {
        #expect(template.envelope.type == .signinSucceeded)
        var ids: [UUID] = []
        for mac in [nil, SHA256.hash(Array("made up".utf8))] {
            var forged = template.envelope
            forged.eventID = .version7()
            forged.stream = StreamName(category: "session", id: UUID().lowercased)
            forged.streamVersion = 1
            let digest = EventRow.digest(of: forged, recordedAt: template.recordedAt)
            let macText = mac.map { "'\\x\(Hex.encode($0))'" } ?? "NULL"
            try await tamper(
                database,
                """
                INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                    outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                    schema_version, digest, mac, log_month)
                SELECT '\(forged.eventID.lowercased)', '\(forged.stream.rawValue)', 1, type, occurred_at, recorded_at,
                    outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                    schema_version, '\\x\(Hex.encode(digest))', \(macText), log_month
                FROM authlog.event_records WHERE event_id = '\(template.envelope.eventID.lowercased)';
                INSERT INTO authlog.unsealed_events (event_id, digest, mac)
                VALUES ('\(forged.eventID.lowercased)', '\\x\(Hex.encode(digest))', \(macText))
                """
            )
            ids.append(forged.eventID)
        }
        return ids
    }

    /// The first sealed `signin.succeeded`.
    private func signin(on connection: Connection) async throws -> RecordedEvent? {
        try await EventReader().events(after: 0, limit: 100, on: connection).first {
            $0.envelope.type == .signinSucceeded
        }
    }

    @Test func aForgedInsertThroughTheQueueIsRefusedRecordedAndNeverSealed() async throws {
        let database = try await TestDatabase.make()
        let key = try Self.authenticator()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        var traffic = TrafficGenerator(seed: 31)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 10).prefix(10))))
        try await store.sealPending()
        let connection = try await database.connect()
        let template = try #require(try await self.signin(on: connection))
        let forged = try await self.forge(database, like: template)
        // Genuine events queue behind the forged ones and are sealed all the same.
        try await store.append(AppendCommand(events: Array(traffic.events(count: 5).prefix(5))))
        try await store.sealPending()
        let sealed = try await connection.query(
            "SELECT count(*) FROM authlog.log_leaves WHERE event_id = ANY(\(ArrayLiteral(forged))::uuid[])"
        )
        #expect(try sealed.first?.decode(Int.self, at: 0) == 0, "a forged row is never sealed")
        let refusal = try await connection.query(
            """
            SELECT reason, data->'event_ids', (data->>'count')::int FROM authlog.events
            WHERE type = 'audit.events_refused'
            """
        )
        #expect(refusal.rows.count == 1)
        #expect(try refusal.first?.decode(String.self, at: 0) == "mac_mismatch")
        #expect(try refusal.first?.decode(Int.self, at: 2) == 2)
        #expect(
            try refusal.first?.decode(String.self, at: 1)
                == "[\"\(forged[0].lowercased)\", \"\(forged[1].lowercased)\"]"
        )
        #expect(store.integrity.snapshot.refusedEvents == 2)
        #expect(try await self.scalar("SELECT count(*) FROM authlog.refused_events", connection) == 0)
        #expect(try await self.scalar("SELECT count(*) FROM authlog.unsealed_events", connection) == 0)
        // 10 + 5 genuine events and the refusal: intact, every MAC checked, the refused rows named, not stranded.
        let report = try await LogVerifier(key: nil, eventKey: key).verify(on: connection)
        #expect(report == .intact(events: 16, root: try await EventReader().head(on: connection).root, checkpoints: 0))
    }

    @Test func aForgedEventSealedPastTheSealerIsNamedByVerify() async throws {
        let database = try await TestDatabase.make()
        let key = try Self.authenticator()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        var traffic = TrafficGenerator(seed: 32)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 10).prefix(10))))
        try await store.sealPending()
        let connection = try await database.connect()
        let template = try #require(try await self.signin(on: connection))
        let forged = try await self.forge(database, like: template)
        // The forger seals them by hand (a superuser needs no sealer): leaves, nodes and head recomputed.
        var frontier = try await storedFrontier(database, size: 10)
        var statements: [String] = ["DELETE FROM authlog.unsealed_events"]
        for (offset, id) in forged.enumerated() {
            let digest =
                try await connection.query(
                    "SELECT digest FROM authlog.event_records WHERE event_id = \(id.lowercased)::uuid"
                ).first?.decode(ByteaValue.self, at: 0).bytes ?? []
            let position = Int64(11 + offset)
            let leaf = MerkleTree.leafHash(position: position, digest: digest)
            let nodes = frontier.append(leaf: leaf).flatMap { $0 }
            statements.append(
                """
                INSERT INTO authlog.log_leaves (position, event_id, leaf_hash, subtree_hashes, sealed_at, log_month)
                SELECT \(position), '\(id.lowercased)', '\\x\(Hex.encode(leaf))', '\\x\(Hex.encode(nodes))', now(), log_month
                FROM authlog.event_records WHERE event_id = '\(id.lowercased)'
                """
            )
        }
        statements.append(
            """
            UPDATE authlog.log_head SET size = 12, root = '\\x\(Hex.encode(frontier.root))',
                frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        try await tamper(database, statements.joined(separator: ";\n"))
        let unauthenticated = LogVerifier.Report.broken(
            position: 11,
            reason: "unauthenticated: the event has no MAC though events before it carry one (forged, or written "
                + "without the event key)"
        )
        let withKey = try await LogVerifier(eventKey: key).verify(on: connection)
        #expect(withKey == unauthenticated, "\(withKey)")
        let withoutKey = try await LogVerifier().verify(on: connection)
        #expect(withoutKey == unauthenticated, "caught without the key too: \(withoutKey)")
        // The one with a made-up MAC alone: only the key tells.
        try await tamper(
            database,
            "UPDATE authlog.event_records SET mac = sha256('x'::bytea) WHERE event_id = '\(forged[0].lowercased)'"
        )
        #expect(
            try await LogVerifier(eventKey: key).verify(on: connection)
                == .broken(position: 11, reason: "forged: the event's MAC does not verify under the event key")
        )
        guard case .intact(_, _, _, _, _, let macsUnchecked, _, _) = try await LogVerifier().verify(on: connection)
        else {
            Issue.record("without the key a made-up MAC cannot be told")
            return
        }
        #expect(macsUnchecked)
    }

    @Test func eventsFromBeforeTheKeyAreUnauthenticatedNotBroken() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 33)
        let before = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await before.append(AppendCommand(events: Array(traffic.events(count: 6).prefix(6))))
        try await before.sealPending()
        let key = try Self.authenticator()
        let after = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        try await after.append(AppendCommand(events: Array(traffic.events(count: 4).prefix(4))))
        try await after.sealPending()
        let connection = try await database.connect()
        let report = try await LogVerifier(eventKey: key).verify(on: connection)
        let head = try await EventReader().head(on: connection)
        #expect(report == .intact(events: 10, root: head.root, checkpoints: 0, unauthenticated: 6))
        #expect(
            report.summary(keyName: "k")
                == "log intact: 10 events, root \(Data(head.root).base64EncodedString()), 0 checkpoints match, "
                + "6 events from before event authentication carry no MAC"
        )
    }

    @Test func aWriterOrSealerWithoutTheLogsKeyIsRefusedBeforeWriting() async throws {
        let database = try await TestDatabase.make()
        let key = try Self.authenticator()
        let keyed = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        var traffic = TrafficGenerator(seed: 34)
        try await keyed.append(AppendCommand(events: Array(traffic.events(count: 3).prefix(3))))
        try await keyed.sealPending()
        let keyID = Hex.encode(key.keyID)
        let keyless = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let keylessFailure = await self.failure {
            try await keyless.append(AppendCommand(events: Array(traffic.events(count: 1).prefix(1))))
        }
        #expect(keylessFailure?.code == .eventKey)
        #expect(
            keylessFailure?.message
                == "this log authenticates its events (event key \(keyID)): give this process the event key "
                + "(AUTHLOG_EVENT_KEY or log.event_key)"
        )
        let other = try Self.authenticator()
        let otherStore = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: other)
        let otherFailure = await self.failure {
            try await otherStore.append(AppendCommand(events: Array(traffic.events(count: 1).prefix(1))))
        }
        #expect(
            otherFailure?.message
                == "this process's event key (\(Hex.encode(other.keyID))) is not the one the log's events are "
                + "authenticated with (\(keyID))"
        )
        // A sealer without the key does not seal a row queued in an authenticated log (here a forged one).
        try await tamper(
            database,
            "INSERT INTO authlog.unsealed_events (event_id, digest) VALUES ('\(UUID().lowercased)', sha256('x'::bytea))"
        )
        #expect(await self.failure { try await keyless.sealPending() }?.code == .eventKey)
        let connection = try await database.connect()
        #expect(try await self.scalar("SELECT count(*) FROM authlog.event_records", connection) == 3, "nothing written")
        try await EventKeyCheck.check(key, pool: keyed.pool)
    }

    /// A genuine event, MAC and all, copied into the queue again (a replay) is refused, not sealed twice.
    @Test func aReplayedGenuineRowIsRefusedAsADuplicate() async throws {
        let database = try await TestDatabase.make()
        let key = try Self.authenticator()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        var traffic = TrafficGenerator(seed: 35)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 5).prefix(5))))
        try await store.sealPending()
        let connection = try await database.connect()
        let sealedBefore = try await self.scalar("SELECT count(*) FROM authlog.log_leaves", connection)
        try await tamper(
            database,
            """
            INSERT INTO authlog.unsealed_events (event_id, digest, mac)
            SELECT event_id, digest, mac FROM authlog.event_records
            WHERE event_id = (SELECT event_id FROM authlog.log_leaves WHERE position = 3)
            """
        )
        try await store.sealPending()
        #expect(try await self.scalar("SELECT count(*) FROM authlog.log_leaves", connection) == sealedBefore + 1)
        let refusal = try await connection.query(
            "SELECT reason FROM authlog.events WHERE type = 'audit.events_refused'"
        )
        #expect(try refusal.rows.map { try $0.decode(String.self, at: 0) } == ["duplicate"])
        let report = try await LogVerifier(eventKey: key).verify(on: connection)
        #expect(report.passed, "\(report)")
    }

    private func failure(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? StoreError
        }
    }

    private func scalar(_ sql: String, _ connection: Connection) async throws -> Int {
        try await connection.query(SQLQuery(unsafeSQL: sql)).first?.decode(Int.self, at: 0) ?? -1
    }
}

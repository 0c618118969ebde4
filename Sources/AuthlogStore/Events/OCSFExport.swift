public import AuthlogCore
public import AuthlogPostgres
import Foundation

/// The OCSF lines of an export page with the log's evidence for each event (``OCSFRecordEvidence``): the one
/// place the push sinks' `ocsf` format, `GET /v1/events?format=ocsf` and `authlog export --format ocsf` get their
/// lines from, so that all three give the same bytes for the same events in the same state of the log.
///
/// The checkpoint a page is proved in is the newest of the 100 newest stored checkpoints among those with the
/// most witness cosignatures: a witnessed checkpoint wins over a newer one the witnesses have not cosigned yet.
/// It depends on the database alone, never on a process's configuration. Events after it are `pending`.
public enum OCSFExport {
    /// The OCSF line of each event of `page`, in order.
    /// - Throws: ``StoreError`` from the database.
    public static func lines(of page: ExportPage, on connection: Connection) async throws -> [String] {
        guard !page.events.isEmpty else { return [] }
        let events = page.events.map { (position: $0.position, event: try? JSONParser().parse($0.json)) }
        let previous = try await self.previous(of: events, on: connection)
        let checkpoint = try await self.checkpoint(on: connection)
        var paths: [Int64: [[UInt8]]] = [:]
        if let checkpoint {
            paths = try await LogProofs.inclusionPaths(
                positions: events.map(\.position).filter { $0 <= checkpoint.size },
                treeSize: checkpoint.size,
                on: connection
            )
        }
        let origin = checkpoint.map { String($0.note.prefix { $0 != "\n" }) }
        return zip(events, page.events).map { parsed, exported in
            guard let event = parsed.event else { return OCSFEvent.line(exportLine: exported.json, evidence: nil) }
            let proved = checkpoint.flatMap { checkpoint in
                paths[parsed.position].map {
                    OCSFRecordEvidence.Checkpoint(size: checkpoint.size, note: checkpoint.note, proof: $0)
                }
            }
            let evidence = OCSFRecordEvidence(
                origin: origin,
                previous: parsed.position > 1 ? previous[parsed.position - 1] : nil,
                checkpoint: proved
            )
            return OCSFEvent.line(event, evidence: evidence)
        }
    }

    /// The event at the position before each event's: from the page itself, else read from the log (one query
    /// for the page). A position whose row retention dropped keeps its leaf's event id without type or digest.
    private static func previous(
        of events: [(position: Int64, event: JSONValue?)],
        on connection: Connection
    ) async throws -> [Int64: OCSFRecordEvidence.Previous] {
        var found: [Int64: OCSFRecordEvidence.Previous] = [:]
        for (position, event) in events {
            guard let event, let id = event["event_id"]?.stringValue else { continue }
            found[position] = OCSFRecordEvidence.Previous(
                eventID: id,
                typeUID: event["type"]?.stringValue.flatMap(EventType.init(rawValue:))?.ocsf.typeUID,
                digest: event["digest"]?.stringValue
            )
        }
        let missing = Set(events.map { $0.position - 1 }.filter { $0 >= 1 && found[$0] == nil })
        guard !missing.isEmpty else { return found }
        let rows = try await connection.query(
            """
            SELECT l.position, l.event_id::text, r.type, encode(r.digest, 'hex')
            FROM authlog.log_leaves l LEFT JOIN authlog.event_records r ON r.event_id = l.event_id
            WHERE l.position = ANY(\(ArrayLiteral(missing.sorted()))::bigint[])
            """
        )
        for row in rows.rows {
            found[try row.decode(Int64.self, at: 0)] = OCSFRecordEvidence.Previous(
                eventID: try row.decode(String.self, at: 1),
                typeUID: try row.decode(String?.self, at: 2).flatMap(EventType.init(rawValue:))?.ocsf.typeUID,
                digest: try row.decode(String?.self, at: 3)
            )
        }
        return found
    }

    /// The checkpoint a page is proved in, with its stored cosignature lines appended to its note; nil before
    /// the first checkpoint.
    private static func checkpoint(on connection: Connection) async throws -> (size: Int64, note: String)? {
        let rows = try await connection.query(
            """
            SELECT c.tree_size, c.note
            FROM (SELECT tree_size, note FROM authlog.checkpoints ORDER BY tree_size DESC LIMIT 100) c
            ORDER BY (SELECT count(*) FROM authlog.checkpoint_cosignatures s WHERE s.tree_size = c.tree_size) DESC,
                c.tree_size DESC
            LIMIT 1
            """
        )
        guard let row = rows.first else { return nil }
        let size = try row.decode(Int64.self, at: 0)
        let lines = try await CheckpointCosignatures.lines(treeSize: size, on: connection)
        return (size, CosignedCheckpoint.appending(lines, to: try row.decode(String.self, at: 1)))
    }
}

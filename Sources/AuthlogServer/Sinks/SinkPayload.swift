import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogStore
import Foundation

/// What one POST to a sink carries: a batch of sealed events as JSON lines, in the export format or as OCSF
/// events, and the `Signature` header that proves it came from this server.
///
/// `Signature: t=<unix seconds>,v1=<hex HMAC-SHA-256(secret, "<t>." ‖ body)>`: the receiver recomputes the
/// HMAC over the timestamp, a dot and the raw body with the sink's secret, compares in constant time, and
/// refuses a timestamp too far from its clock (a replayed batch). docs/operations.md has a verification snippet.
public enum SinkPayload {
    /// The body of a batch: one line per event of `page`, in `format`, each ending in a newline. OCSF lines
    /// carry the log's evidence read from `connection` (``OCSFExport``), the same bytes `GET /v1/events` and
    /// `authlog export` give with `format=ocsf`.
    /// - Throws: ``StoreError`` from the database (OCSF only).
    public static func body(
        of page: ExportPage,
        format: SinkSettings.Format,
        on connection: Connection
    ) async throws -> [UInt8] {
        switch format {
        case .export: return self.body(page.events.map(\.json))
        case .ocsf: return self.body(try await OCSFExport.lines(of: page, on: connection))
        }
    }

    /// `lines`, each followed by a newline.
    public static func body(_ lines: [String]) -> [UInt8] {
        var body: [UInt8] = []
        for line in lines {
            body += Array(line.utf8)
            body.append(0x0A)
        }
        return body
    }

    /// The `Signature` header's value for `body` sent at `timestamp` (unix seconds).
    public static func signature(of body: [UInt8], secret: [UInt8], timestamp: Int64) -> String {
        let message = Array("\(timestamp).".utf8) + body
        let mac = (try? HMACSHA256.authenticationCode(for: message, key: secret)) ?? []
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }
}

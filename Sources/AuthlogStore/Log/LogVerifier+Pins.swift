import AuthlogPostgres
import AuthlogTransparency
import Foundation

/// The roots the walk is held to: the checkpoints stored in the database, the notes kept outside it and the
/// roots the log recorded in its own `audit.checkpoint_signed` events, gathered, opened and checked against
/// each other before the walk.
extension LogVerifier {
    /// A root to compare with the recomputed root at its size: a signed checkpoint's, or one the log recorded.
    struct Pin {
        var size: Int64
        var root: [UInt8]
        var source: String
        var isRequired = false
        var isRecorded = false
        /// Whether it is a checkpoint stored in the database.
        var isStored = false
        /// The key that signed the note (nil: recorded, or no keyring given).
        var keyID: String?

        /// Whether it is a note kept outside the database: what a database owner cannot rewrite, so the evidence
        /// a rewrite is measured against (stored checkpoints and recorded roots are the database's own word).
        var isOutside: Bool { !self.isStored && !self.isRecorded }
    }

    /// The pins to hold the walk to, sorted by size, and the notes signed by another key; or the report of a
    /// contradiction found among them.
    func gatherPins(
        on connection: Connection,
        outside: [OutsideNote]
    ) async throws -> Result<(pins: [Pin], foreign: [String]), Broken> {
        var pins: [Pin] = []
        var foreign: [String] = []
        switch try await self.storedPins(on: connection) {
        case .success(let stored):
            pins = stored.pins
            foreign = stored.foreign
        case .failure(let broken): return .failure(broken)
        }
        for note in outside {
            switch self.outsidePin(note) {
            case .success(let pin): pins.append(pin)
            case .failure(let failure):
                guard case .otherKey(let why) = failure.report else { return .failure(failure) }
                foreign.append(why)
            }
        }
        pins += try await self.recordedPins(on: connection)
        // By size; within a size in the order found (stored, outside, recorded), so reports name them alike.
        pins = pins.enumerated().sorted { ($0.element.size, $0.offset) < ($1.element.size, $1.offset) }.map(\.element)
        if let fork = Self.fork(in: pins) { return .failure(Broken(report: fork)) }
        return .success((pins, foreign))
    }

    /// Two pins of one size and of one kind (both outside the database, or both in it) with different roots. A
    /// note kept outside that differs from the database's own pin is left to the walk, which says which one the
    /// events give and, when it is the database's, which positions were rewritten.
    static func fork(in pins: [Pin]) -> Report? {
        for (index, earlier) in pins.enumerated() {
            for later in pins[(index + 1)...].prefix(while: { $0.size == earlier.size })
            where later.isOutside == earlier.isOutside && later.root != earlier.root {
                return .fork(
                    size: earlier.size,
                    reason: "forked: \(earlier.source) and \(later.source) give the tree of \(earlier.size) events "
                        + "different roots"
                )
            }
        }
        return nil
    }

    /// The roots the log recorded in its `audit.checkpoint_signed` events (their contents are checked by the
    /// walk like every event's).
    private func recordedPins(on connection: Connection) async throws -> [Pin] {
        let rows = try await connection.query(
            """
            SELECT position, data->>'tree_size', data->>'root_hash' FROM authlog.events
            WHERE type = 'audit.checkpoint_signed' ORDER BY position
            """
        )
        return try rows.rows.compactMap { row in
            let position = try row.decode(Int64.self, at: 0)
            guard let size = try row.decode(String?.self, at: 1).flatMap({ Int64($0) }),
                let root = try row.decode(String?.self, at: 2).flatMap({ Data(base64Encoded: $0) }), root.count == 32
            else { return nil }
            return Pin(
                size: size,
                root: Array(root),
                source: "audit.checkpoint_signed at position \(position)",
                isRecorded: true
            )
        }
    }

    /// A contradiction found before the walk: its report.
    struct Broken: Error {
        var report: Report
    }

    /// The roots of the checkpoints stored in the database (each note opened with the keyring, when given), and
    /// the notes signed by another key; or the first stored note that does not match its row.
    private func storedPins(
        on connection: Connection
    ) async throws
        -> Result<(pins: [Pin], foreign: [String]), Broken>
    {
        let rows = try await connection.query(
            "SELECT tree_size, root, note FROM authlog.checkpoints ORDER BY tree_size"
        )
        var pins: [Pin] = []
        var foreign: [String] = []
        var lastGood: Int64 = 0
        for row in rows.rows {
            let size = try row.decode(Int64.self, at: 0)
            let root = try row.decode(ByteaValue.self, at: 1).bytes
            let note = try row.decode(String.self, at: 2)
            let source = "the stored checkpoint at \(size)"
            var keyID: String?
            if let keys = self.keys {
                let body: String
                do {
                    let opened = try keys.open(note)
                    (body, keyID) = (opened.body, opened.keyID)
                } catch .unknownKey(let signers) {
                    // No known key's note: its root proves nothing, and it is no tampering by itself.
                    foreign.append("\(source) (\(signers))")
                    continue
                } catch {
                    return .failure(Broken(report: .broken(position: lastGood + 1, reason: "\(source): \(error)")))
                }
                guard let checkpoint = Checkpoint(body: body), checkpoint.size == size, checkpoint.root == root else {
                    return .failure(
                        Broken(
                            report: .broken(position: lastGood + 1, reason: "\(source): the note differs from its row")
                        )
                    )
                }
            }
            pins.append(Pin(size: size, root: root, source: source, isStored: true, keyID: keyID))
            lastGood = size
        }
        return .success((pins, foreign))
    }

    /// The root of a note kept outside the database, opened with the keyring.
    private func outsidePin(_ outside: OutsideNote) -> Result<Pin, Broken> {
        let source = outside.source
        guard let keys = self.keys else {
            return .failure(
                Broken(report: .broken(position: 1, reason: "no key to check the signature of \(source) with"))
            )
        }
        do {
            let opened = try keys.open(outside.note)
            guard let checkpoint = Checkpoint(body: opened.body) else {
                return .failure(Broken(report: .broken(position: 1, reason: "\(source) is not a checkpoint")))
            }
            return .success(
                Pin(
                    size: checkpoint.size,
                    root: checkpoint.root,
                    source: source,
                    isRequired: outside.isRequired,
                    keyID: opened.keyID
                )
            )
        } catch .unknownKey(let signers) {
            return .failure(Broken(report: .otherKey("\(source) (\(signers))")))
        } catch {
            return .failure(Broken(report: .broken(position: 1, reason: "\(source): \(error)")))
        }
    }
}

import AuthlogClient
import AuthlogTransparency
import Foundation

/// An event as a test server records it: the fields the monitor checks, laid out as authlog's canonical bytes
/// (`authlog.event.v2`: a presence byte and, when present, a 4-byte big-endian length and the bytes, for each of
/// the 17 fields in order; docs/events.md "Canonical bytes").
struct TestEvent: Sendable {
    var id: String = UUID().uuidString.lowercased()
    var type: String = "signin.succeeded"
    var userID: String?
    var sessionID: String?
    var occurredAt: Date = Date()

    var bytes: [UInt8] {
        let micros = String(Int64((self.occurredAt.timeIntervalSince1970 * 1_000_000).rounded()))
        let fields: [String?] = [
            self.id, self.userID.map { "user-\($0)" } ?? "signin-dev", "1", self.type, micros, micros, "success", nil,
            "dev", self.userID, self.sessionID, nil,
        ]
        var output = Array("authlog.event.v2".utf8)
        func field(_ bytes: [UInt8]?) {
            guard let bytes else { return output.append(0) }
            let count = UInt32(bytes.count)
            output += [1, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            output += bytes
        }
        for value in fields { field(value.map { Array($0.utf8) }) }
        field([127, 0, 0, 1])  // ip
        field(Array("Tests/1.0".utf8))  // user agent
        field(nil)  // request id
        field(Array("{}".utf8))  // data
        field(Array("1".utf8))  // schema version
        return output
    }
}

/// A log held in memory, leaf by leaf: roots, multi-leaf proofs and consistency proofs computed from the
/// leaves by RFC 9162's split (small trees only: each subtree hash is computed afresh).
struct FakeLogTree: Sendable {
    private(set) var events: [TestEvent] = []
    private(set) var leaves: [[UInt8]] = []
    let crypto = PlatformTransparencyCrypto()

    var size: Int64 { Int64(self.leaves.count) }

    /// Appends `event`; its position.
    @discardableResult
    mutating func append(_ event: TestEvent) -> Int64 {
        self.events.append(event)
        let position = Int64(self.leaves.count + 1)
        self.leaves.append(
            MerkleTree.leafHash(position: position, digest: self.crypto.sha256(event.bytes), crypto: self.crypto)
        )
        return position
    }

    /// Replaces the event at `position` (a fork of history).
    mutating func replace(position: Int64, with event: TestEvent) {
        let index = Int(position - 1)
        self.events[index] = event
        self.leaves[index] = MerkleTree.leafHash(
            position: position,
            digest: self.crypto.sha256(event.bytes),
            crypto: self.crypto
        )
    }

    /// The first `size` leaves.
    func prefix(_ size: Int64) -> FakeLogTree {
        var tree = FakeLogTree()
        for event in self.events.prefix(Int(size)) { tree.append(event) }
        return tree
    }

    /// The position of the event `id`.
    func position(of id: String) -> Int64? {
        self.events.firstIndex { $0.id == id }.map { Int64($0 + 1) }
    }

    func root(size: Int64) -> [UInt8] {
        size == 0 ? MerkleTree.emptyRoot : self.hash(MerkleProof.Range(start: 0, end: size))
    }

    func multiProof(indices: [Int64], size: Int64) -> [[UInt8]] {
        MultiLeafProof.ranges(indices: indices, size: size).map(self.hash)
    }

    func consistency(from old: Int64, to new: Int64) -> [[UInt8]] {
        MerkleProof.consistency(oldSize: old, newSize: new).map(self.hash)
    }

    private func hash(_ range: MerkleProof.Range) -> [UInt8] {
        let count = range.end - range.start
        if count == 1 { return self.leaves[Int(range.start)] }
        var split: Int64 = 1
        while split * 2 < count { split *= 2 }
        return MerkleTree.nodeHash(
            self.hash(MerkleProof.Range(start: range.start, end: range.start + split)),
            self.hash(MerkleProof.Range(start: range.start + split, end: range.end)),
            crypto: self.crypto
        )
    }
}

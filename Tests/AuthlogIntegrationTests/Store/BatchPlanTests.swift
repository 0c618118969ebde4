import AuthlogCore
import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogStore

/// The decisions of a batch, without a database: expected versions, stream versions, idempotent replays,
/// and a failing command leaving nothing behind.
struct BatchPlanTests {
    private func prepared(_ command: AppendCommand) throws -> PreparedCommand {
        try PostgresEventStore.prepare(command)
    }

    @Test func eachCommandIsDecidedInOrderAndAFailureLeavesNothing() throws {
        let apple = StreamName(category: "signin", id: "apple")
        let first = failedSignin(provider: "apple")
        var wrongVersion = failedSignin(provider: "apple")
        wrongVersion.streamVersion = 9
        let commands = try [
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(5)),
            AppendCommand(first),
            AppendCommand(events: [failedSignin(provider: "google"), wrongVersion]),
            AppendCommand(first),
            AppendCommand(failedSignin(provider: "kakao"), expecting: .noStream),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(3)),
        ].map(self.prepared)
        let plan = BatchPlan(
            commands: commands,
            streamVersions: [apple.rawValue: 2],
            knownEvents: [:],
            recordedAt: Timestamp(microsecondsSinceEpoch: 1_700_000_000_000_000)
        )
        guard case .failure(let expected) = plan.results[0] else {
            Issue.record("expecting version 5 of a stream at 2 fails")
            return
        }
        #expect(expected.message == "stream signin-apple is at version 2, expected exactly(5)")
        #expect(try plan.results[1].get().events.map(\.streamVersion) == [3])
        guard case .failure(let explicit) = plan.results[2] else {
            Issue.record("an explicit version that is not the next one fails the whole command")
            return
        }
        #expect(explicit.eventIndex == 1)
        #expect(try plan.results[3].get().events.first?.wasAlreadyStored == true, "the same event id again")
        #expect(try plan.results[3].get().events.first?.streamVersion == 3)
        #expect(try plan.results[4].get().events.map(\.streamVersion) == [1])
        #expect(try plan.results[5].get().events.map(\.streamVersion) == [4], "sees the versions placed before it")
        // Rows: the first apple event, kakao, the last apple event; nothing of the failed commands.
        #expect(plan.rows.map(\.envelope.stream.rawValue) == ["signin-apple", "signin-kakao", "signin-apple"])
        #expect(plan.rows.map { $0.envelope.streamVersion } == [3, 1, 4])
        #expect(plan.rows.allSatisfy { $0.signinCount?.outcome == "failure" }, "sign-ins carry their count")
        #expect(
            plan.rows[0].digest == EventRow.digest(of: plan.rows[0].envelope, recordedAt: plan.recordedAt)
        )
    }

    @Test func aStoredEventIsAnsweredWithItsPosition() throws {
        let event = failedSignin()
        let known = AppendedEvent(eventID: event.eventID, position: 41, streamVersion: 7, wasAlreadyStored: true)
        let plan = BatchPlan(
            commands: [try self.prepared(AppendCommand(event))],
            streamVersions: [:],
            knownEvents: [event.eventID: known],
            recordedAt: .now()
        )
        #expect(try plan.results[0].get().events == [known])
        #expect(plan.rows.isEmpty)
    }
}

/// The tree's arithmetic against the definition (RFC 9162 MTH computed recursively), without a database.
struct MerkleTreeTests {
    private static func leaves(_ count: Int) -> [[UInt8]] {
        (0..<count).map {
            MerkleTree.leafHash(position: Int64($0 + 1), digest: [UInt8](repeating: UInt8($0 % 251), count: 32))
        }
    }

    private static func mth(_ leaves: ArraySlice<[UInt8]>) -> [UInt8] {
        if leaves.isEmpty { return MerkleTree.emptyRoot }
        if leaves.count == 1, let only = leaves.first { return only }
        var split = 1
        while split << 1 < leaves.count { split <<= 1 }
        let start = leaves.startIndex
        return MerkleTree.nodeHash(
            self.mth(leaves[start..<start + split]),
            self.mth(leaves[(start + split)...])
        )
    }

    @Test func theFrontierAndTheStoredNodesMatchTheDefinition() throws {
        let leaves = Self.leaves(130)
        var frontier = MerkleFrontier()
        #expect(frontier.root == MerkleTree.emptyRoot)
        var nodes: [MerkleNodeID: [UInt8]] = [:]
        for (index, leaf) in leaves.enumerated() {
            nodes[MerkleNodeID(level: 0, index: Int64(index))] = leaf
            for (level, hash) in frontier.append(leaf: leaf).enumerated() {
                let id = MerkleNodeID(level: level + 1, index: Int64(index + 1) >> Int64(level + 1) - 1)
                #expect(id.storingPosition == Int64(index + 1), "a node is stored with the leaf that completes it")
                let width = 1 << (level + 1)
                #expect(hash == Self.mth(leaves[(index + 1 - width)...index]))
                nodes[id] = hash
            }
            #expect(frontier.root == Self.mth(leaves[0...index]))
            let stored = try #require(MerkleFrontier(size: frontier.size, bytes: frontier.bytes))
            #expect(stored == frontier)
        }
        for size in Int64(1)...130 {
            let whole = MerkleProof.Range(start: 0, end: size)
            #expect(MerkleProof.hash(of: whole, nodes: nodes) == Self.mth(leaves[0..<Int(size)]))
            #expect(MerkleProof.nodes(of: whole).count == size.nonzeroBitCount, "one node per set bit")
        }
        #expect(MerkleFrontier(size: 3, bytes: [UInt8](repeating: 0, count: 32)) == nil, "3 leaves need 2 hashes")
    }
}

import AuthlogClient
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file stores on a file system that refuses to flush a directory (some FUSE and network mounts): the rename
/// happened, every reader sees the new file, so the save has happened and says so. A store that threw here would
/// leave its caller believing the old tokens or the old record are on disk while every other process reads the new.
struct FileStoreDurabilityTests {
    /// A directory flush that fails as such a file system's does.
    static let refusingFlush: @Sendable (String, Int32) -> Bool = { _, _ in
        errno = EINVAL
        return false
    }

    @Test func aTokenFileRenamedButNotFlushedIsSavedAndWhatOthersRead() async throws {
        let folder = try MonitorRecordTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tokens.json")
        let store = FileTokenStore(url: url, flushDirectory: Self.refusingFlush)
        try await store.save(ClientValueTests.tokens)
        var next = ClientValueTests.tokens
        next.refreshToken = "alr_NEXT"
        try await store.save(next)
        // Another process opening the same file reads the pair this one holds.
        #expect(try await FileTokenStore(url: url).load() == next)
    }

    @Test func aMonitorRecordRenamedButNotFlushedIsSavedAndWhatOthersRead() async throws {
        let folder = try MonitorRecordTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("monitor.json")
        let store = FileCheckpointStore(url: url, flushDirectory: Self.refusingFlush)
        try await store.save(MonitorRecord(checkpoint: "first"))
        try await store.save(MonitorRecord(checkpoint: "second"))
        #expect(try await FileCheckpointStore(url: url).load() == MonitorRecord(checkpoint: "second"))
    }

    @Test func aWriteThatFailsBeforeTheRenameStillThrowsAndLeavesTheOldFile() async throws {
        let folder = try MonitorRecordTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tokens.json")
        try await FileTokenStore(url: url).save(ClientValueTests.tokens)
        // The temporary file cannot be made: its folder is where a file is.
        let blocked = folder.appendingPathComponent("file").appendingPathComponent("tokens.json")
        try #require(
            FileManager.default.createFile(atPath: folder.appendingPathComponent("file").path, contents: Data())
        )
        await #expect(throws: AuthlogClientError.self) {
            try await FileTokenStore(url: blocked, flushDirectory: Self.refusingFlush).save(ClientValueTests.tokens)
        }
        #expect(try await FileTokenStore(url: url).load() == ClientValueTests.tokens)
    }
}

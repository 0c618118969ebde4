import Foundation
import Testing

@testable import AuthlogTransparency

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``DurableFile`` replaces a file whole, creates one only once, and reports a failed step without touching the
/// old contents.
struct DurableFileTests {
    func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "authlog-durable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func replaceWritesTheWholeFileWithItsModeAndLeavesNothingElse() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/state/latest.note"
        try DurableFile.replace(path, with: Array("first\n".utf8))
        try DurableFile.replace(path, with: Array("second\n".utf8), permissions: 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("second\n".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory)/state") == ["latest.note"])
        let large = [UInt8](repeating: 0x41, count: 3 << 20)
        try DurableFile.replace(path, with: large)
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == large)
    }

    @Test func createOnceNeverReplacesAnExistingFile() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint-7.note"
        #expect(try DurableFile.createOnce(path, with: Array("mine\n".utf8)) == nil)
        #expect(try DurableFile.createOnce(path, with: Array("theirs\n".utf8)) == Array("mine\n".utf8))
        #expect(FileManager.default.contents(atPath: path) == Data("mine\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["checkpoint-7.note"])
    }

    @Test func aFailedStepIsReportedAndTheOldFileStays() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/tokens.json"
        try DurableFile.replace(path, with: Array("old".utf8))
        // A directory where the file is: the rename fails, and the temporary file is removed.
        let blocked = "\(directory)/blocked"
        try FileManager.default.createDirectory(atPath: "\(blocked)/inside", withIntermediateDirectories: true)
        let renamed = #expect(throws: TransparencyError.self) {
            try DurableFile.replace(blocked, with: Array("new".utf8))
        }
        #expect(renamed?.code == .fileSystem && renamed?.message.hasPrefix("cannot rename ") == true)
        // A file where the directory should be: nothing can be created in it.
        #expect(throws: TransparencyError(.fileSystem, "cannot create the directory \(path): Not a directory")) {
            try DurableFile.replace("\(path)/inner", with: Array("new".utf8))
        }
        #expect(FileManager.default.contents(atPath: path) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["blocked", "tokens.json"])
    }

    /// A rename whose directory cannot be flushed is not "nothing happened": the new contents are in place, and
    /// the error says so (`.notDurable`), so a caller can keep its memory equal to the disk.
    @Test func aFailedDirectoryFlushAfterTheRenameIsNotDurable() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/latest.note"
        try DurableFile.replace(path, with: Array("old".utf8))
        let failing: DurableFile.DirectoryFlush = { _, _ in
            errno = EIO
            return false
        }
        #expect(
            throws: TransparencyError(
                .notDurable,
                "\(path) is replaced but not durable: cannot flush the directory \(directory): Input/output error"
            )
        ) {
            try DurableFile.replace(path, with: Array("new".utf8), permissions: 0o644, flushDirectory: failing)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
        let created = "\(directory)/checkpoint-9.note"
        let unflushed = #expect(throws: TransparencyError.self) {
            try DurableFile.createOnce(created, with: Array("nine".utf8), permissions: 0o644, flushDirectory: failing)
        }
        #expect(unflushed?.code == .notDurable && unflushed?.message.hasPrefix("\(created) is created but") == true)
        #expect(FileManager.default.contents(atPath: created) == Data("nine".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "checkpoint-9.note", "latest.note",
            ]
        )
        // A flush that fails before the rename (the new directory's, into its parent) leaves nothing replaced.
        let nested = "\(directory)/new/latest.note"
        let refused = #expect(throws: TransparencyError.self) {
            try DurableFile.replace(nested, with: Array("new".utf8), permissions: 0o644, flushDirectory: failing)
        }
        #expect(refused?.code == .fileSystem, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: nested))
    }

    /// Each directory a write creates is flushed into its parent before the file is renamed into it; otherwise a
    /// crash could take the new directory, and the file "durably" written in it, away.
    @Test func aCreatedDirectoryIsFlushedIntoItsParent() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var flushed: [String] = []
        try DurableFile.replace("\(directory)/a/b/latest.note", with: Array("x".utf8), permissions: 0o644) {
            flushed.append($0)
            return fsync($1) == 0
        }
        #expect(flushed == [directory, "\(directory)/a", "\(directory)/a/b"])
        flushed = []
        try DurableFile.replace("\(directory)/a/b/latest.note", with: Array("y".utf8), permissions: 0o644) {
            flushed.append($0)
            return fsync($1) == 0
        }
        #expect(flushed == ["\(directory)/a/b"], "nothing new to flush but the rename")
    }

    /// A crash between a temporary file's creation and its rename leaves `.<name>.<UUID>`: the first replace of
    /// that file removes such leftovers untouched for over an hour, and nothing else.
    @Test func staleTemporaryFilesOfTheTargetAreRemoved() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stale = ".tokens.json.\(UUID().uuidString)"
        let fresh = ".tokens.json.\(UUID().uuidString)"
        let notOurs = [".tokens.json.backup", ".other.json.\(UUID().uuidString)", "tokens.json.\(UUID().uuidString)"]
        let twoHoursAgo = Date(timeIntervalSinceNow: -7200)
        for name in [stale, fresh] + notOurs {
            let file = "\(directory)/\(name)"
            #expect(FileManager.default.createFile(atPath: file, contents: Data("left".utf8)))
            if name != fresh {
                try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: file)
            }
        }
        try DurableFile.replace("\(directory)/tokens.json", with: Array("{}".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(left == ([fresh, "tokens.json"] + notOurs).sorted())
    }

    /// An existing file that cannot be read is named as such, not as "File exists".
    @Test func anExistingFileThatCannotBeReadIsNamed() throws {
        let directory = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint-3.note"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: TransparencyError(.fileSystem, "cannot create \(path): it exists but cannot be read")) {
            try DurableFile.createOnce(path, with: Array("three".utf8))
        }
    }
}

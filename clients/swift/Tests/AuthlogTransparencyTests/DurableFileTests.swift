import AuthlogTransparency
import Foundation
import Testing

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
        #expect(throws: TransparencyError(.fileSystem, "cannot create the directory \(path)")) {
            try DurableFile.replace("\(path)/inner", with: Array("new".utf8))
        }
        #expect(FileManager.default.contents(atPath: path) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["blocked", "tokens.json"])
    }
}

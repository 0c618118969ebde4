import AuthlogTransparency
import Foundation
import Testing

/// ``BoundedFile`` reads a file only up to its bound: a larger file, or an endless device, is refused after
/// `limit + 1` bytes.
struct BoundedFileTests {
    @Test func aFileIsReadUpToItsBoundAndNoFurther() throws {
        let path = NSTemporaryDirectory() + "authlog-bounded-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("12345".utf8)))
        #expect(BoundedFile.contents(atPath: path, limit: 5) == Array("12345".utf8))
        #expect(BoundedFile.contents(atPath: path, limit: 4) == nil)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(BoundedFile.contents(atPath: path, limit: 5) == [])
        #expect(BoundedFile.contents(atPath: path + ".missing", limit: 5) == nil)
        // An endless device: FileManager.contents(atPath:) would never return.
        #expect(BoundedFile.contents(atPath: "/dev/zero", limit: WitnessPolicy.maximumBytes) == nil)
    }
}

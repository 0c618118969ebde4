import Foundation

/// The system's `gzip`, as a decoder that is not authlog's: tests read the server's gzip answers back with it.
public enum SystemGzip {
    /// What `gzip -dc` makes of `bytes`.
    /// - Throws: when gzip cannot run or refuses the input (not gzip, truncated, a bad checksum).
    public static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("answer.gz")
        try Data(bytes).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", input.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "gzip -dc refused it"])
        }
        return Array(decoded)
    }
}

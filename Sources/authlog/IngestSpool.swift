import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The temporary copy of `authlog append`'s standard input, so every line can be checked before anything is
/// stored without holding the input in memory. The file is made in `$TMPDIR` (else /tmp) with mode 0600 and
/// unlinked at once: it has no name while the command reads it, and the system frees it when the process
/// exits, however it exits (SIGKILL included).
final class IngestSpool: Sendable {
    /// The open file, read and written by the command.
    let descriptor: Int32

    /// Makes the file and unlinks it.
    /// - Throws: ``JSONLineReader/Failure`` naming the folder when it cannot be made there.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(JSONLineReader.Failure) {
        let folder = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/authlog-append.XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { path in
            path.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else {
            throw JSONLineReader.Failure(
                description: "cannot make a spool file in \(folder): \(String(cString: strerror(errno)))"
            )
        }
        template.withUnsafeBufferPointer { path in
            if let path = path.baseAddress { _ = unlink(path) }
        }
        self.descriptor = descriptor
    }

    deinit {
        close(self.descriptor)
    }

    /// Moves back to the first byte, to read what was written.
    /// - Throws: ``JSONLineReader/Failure`` when the file cannot be rewound.
    func rewind() throws(JSONLineReader.Failure) {
        guard lseek(self.descriptor, 0, SEEK_SET) == 0 else {
            throw JSONLineReader.Failure(description: String(cString: strerror(errno)))
        }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The temporary copy of `authlog append`'s standard input, so every line can be checked before anything is
/// stored without holding the input in memory (the checks and the commits each read it once). The file is
/// made in `$TMPDIR` (else /tmp) with mode 0600 and unlinked at once: it has no name while the command reads
/// it, and the system frees it when the process exits, however it exits (SIGKILL included).
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

    /// Copies everything `input` gives, to its end, into the file, as fast as it arrives: a program piping
    /// into `authlog append` is not held back while the lines are checked (two appenders fed one after the
    /// other by one writer still commit at the same time); then moves back to the first byte.
    /// - Throws: ``JSONLineReader/Failure`` when reading `input` or writing the file fails.
    func fill(from input: Int32) throws(JSONLineReader.Failure) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONLineReader.Failure(description: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            try JSONLineReader.writeAll(buffer[..<count], to: self.descriptor)
        }
        try self.rewind()
    }

    /// Moves back to the first byte, to read what was written.
    /// - Throws: ``JSONLineReader/Failure`` when the file cannot be rewound.
    func rewind() throws(JSONLineReader.Failure) {
        guard lseek(self.descriptor, 0, SEEK_SET) == 0 else {
            throw JSONLineReader.Failure(description: String(cString: strerror(errno)))
        }
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The witness's record of one log: the latest checkpoint it cosigned, as the cosigned note (the log's note
/// with the witness's cosignature appended), in `<state dir>/<hex SHA-256 of the origin>.note`. Written to a
/// temporary file, fsynced, renamed over the old one, and the directory fsynced, before the witness answers.
struct WitnessStateFile: Sendable {
    /// The file's path.
    let path: String
    private let directory: String
    private let origin: String

    init(directory: String, origin: String) {
        self.directory = directory
        self.origin = origin
        self.path = "\(directory)/\(Hex.encode(SHA256.hash(Array(origin.utf8)))).note"
    }

    /// The stored checkpoint and note; nil when the witness never cosigned this log.
    /// - Throws: ``WitnessStateError`` when the file exists but is not a checkpoint of this origin.
    func read() throws(WitnessStateError) -> (checkpoint: Checkpoint, note: String)? {
        guard FileManager.default.fileExists(atPath: self.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: self.path), data.count <= 1 << 20,
            let text = String(data: data, encoding: .utf8), let note = NoteText(text),
            let checkpoint = Checkpoint(body: note.body), checkpoint.origin == self.origin
        else { throw WitnessStateError(description: "\(self.path) is not a cosigned checkpoint of \(self.origin)") }
        return (checkpoint, text)
    }

    /// Replaces the stored note with `note`, durably.
    /// - Throws: ``WitnessStateError`` when a step fails (the old state then stays).
    func write(_ note: String) throws(WitnessStateError) {
        let temporary = self.path + ".tmp"
        let bytes = Array(note.utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WitnessStateError(description: "cannot create \(temporary): errno \(errno)")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                close(descriptor)
                throw WitnessStateError(description: "cannot write \(temporary): errno \(errno)")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            close(descriptor)
            throw WitnessStateError(description: "cannot fsync \(temporary): errno \(errno)")
        }
        close(descriptor)
        guard rename(temporary, self.path) == 0 else {
            throw WitnessStateError(description: "cannot rename \(temporary): errno \(errno)")
        }
        let directory = open(self.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            throw WitnessStateError(description: "cannot open \(self.directory): errno \(errno)")
        }
        defer { close(directory) }
        guard fsync(directory) == 0 else {
            throw WitnessStateError(description: "cannot fsync \(self.directory): errno \(errno)")
        }
    }
}

/// Why a witness's state cannot be read or written, or its logs are misconfigured.
public struct WitnessStateError: Error, CustomStringConvertible {
    /// What is wrong, naming the file or the origin.
    public let description: String
}

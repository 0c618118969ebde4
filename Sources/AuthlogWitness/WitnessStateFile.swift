import AuthlogCore
import AuthlogCrypto
import AuthlogTransparency
import Foundation

/// The witness's record of one log: the latest checkpoint it cosigned, as the cosigned note (the log's note
/// with the witness's cosignature appended), in `<state dir>/<hex SHA-256 of the origin>.note`. Written with
/// ``DurableFile`` (a temporary file, flushed, renamed over the old one, the directory flushed) before the
/// witness answers.
struct WitnessStateFile: Sendable {
    /// The file's path.
    let path: String
    private let origin: String

    init(directory: String, origin: String) {
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
        do {
            try DurableFile.replace(self.path, with: Array(note.utf8))
        } catch {
            throw WitnessStateError(description: error.message)
        }
    }
}

/// Why a witness's state cannot be read or written, or its logs are misconfigured.
public struct WitnessStateError: Error, CustomStringConvertible {
    /// What is wrong, naming the file or the origin.
    public let description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}

import AuthlogCore
import AuthlogCrypto
import AuthlogTransparency
import Foundation

/// The witness's record of one log: the latest checkpoint it cosigned, as the cosigned note (the log's note
/// with the witness's cosignature appended), in `<state dir>/<hex SHA-256 of the origin>.note`. Written with
/// ``DurableFile`` (a temporary file, flushed, renamed over the old one, the directory flushed) before the
/// witness answers.
struct WitnessStateFile: Sendable {
    /// Writes a whole file durably, as ``DurableFile/replace(_:with:permissions:)`` does.
    typealias Replace = @Sendable (_ path: String, _ bytes: [UInt8]) throws(TransparencyError) -> Void

    /// The file's path.
    let path: String
    private let origin: String
    private let replace: Replace

    /// The state of the log `origin` in `directory`, written with `replace` (``DurableFile``; tests fail a step).
    init(
        directory: String,
        origin: String,
        replace: @escaping Replace = { path, bytes throws(TransparencyError) in
            try DurableFile.replace(path, with: bytes)
        }
    ) {
        self.origin = origin
        self.path = "\(directory)/\(Hex.encode(SHA256.hash(Array(origin.utf8)))).note"
        self.replace = replace
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
    /// - Throws: ``TransparencyError``: `.fileSystem` when a step failed and the old state stays; `.notDurable` when
    ///   the file holds `note` but its directory could not be flushed (a power cut may bring the old state back).
    func write(_ note: String) throws(TransparencyError) {
        try self.replace(self.path, Array(note.utf8))
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

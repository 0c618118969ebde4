import AuthlogTransparency

/// How the client's file stores (``FileTokenStore``, ``FileCheckpointStore``) write their file: replaced durably
/// (``DurableFile``), with one difference. A file renamed into place whose directory could not be flushed
/// (``TransparencyError/Code/notDurable``) counts as written: every reader, this process and the others sharing
/// the file, now sees the new contents, so the store must not tell its caller the old ones are still there. What
/// stays unsure is only whether a power cut before the system's own flush brings back the old file; no error the
/// store could throw would undo that.
enum StoreFile {
    /// Replaces the file at `path` with `bytes`, mode 0600.
    /// - Throws: ``TransparencyError`` `.fileSystem`: the file is as it was.
    static func write(
        _ bytes: [UInt8],
        to path: String,
        flushDirectory: DurableFile.DirectoryFlush
    ) throws(TransparencyError) {
        do {
            try DurableFile.replace(path, with: bytes, permissions: 0o600, flushDirectory: flushDirectory)
        } catch let unflushed where unflushed.code == .notDurable {
            return
        }
    }
}

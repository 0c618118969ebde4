#if canImport(Glibc)
import Glibc
#endif

/// What tells one version of a file from the next without reading it: its device and inode (a file moved
/// into place) and its size and modification time (a file written over).
struct FileStamp: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    /// The stamp of the file at `path`; nil when there is none.
    init?(of path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.device = UInt64(status.st_dev)
        self.inode = UInt64(status.st_ino)
        self.size = Int64(status.st_size)
        self.modifiedSeconds = Int(status.st_mtim.tv_sec)
        self.modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
    }
}

import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Why a server could not start listening, in words for the operator who started it.
public enum ListenFailure {
    /// Whether `error`, thrown while the server started, says that the address is taken by another process.
    public static func isAddressInUse(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == EADDRINUSE
    }

    /// The sentence for an address in use: which one, and what to do.
    public static func addressInUse(host: String, port: Int) -> String {
        "cannot listen on \(host):\(port): another process is using that port; stop it, or choose another port "
            + "with --port or \"port\" in the configuration (AUTHLOG_PORT)"
    }
}

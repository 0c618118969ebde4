/// authlog's own version: what `authlog --version` prints and OCSF lines name as `metadata.product.version`.
public enum AuthlogVersion {
    /// The version of this build.
    public static let current = "0.1.0"
}

/// Where the effective value of a configuration member came from, as `authlog config check` shows it.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// Nobody set it: the default of ``ConfigurationDefaults`` (or of the resolved settings) applies.
    case `default`
    /// The configuration file.
    case file
    /// The environment variable of this name.
    case environment(String)

    public var description: String {
        switch self {
        case .default: return "default"
        case .file: return "file"
        case .environment(let name): return "environment (\(name))"
        }
    }
}

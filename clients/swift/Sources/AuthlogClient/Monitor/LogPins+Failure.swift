extension LogPins {
    /// Why pins cannot be made.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// A verifier key is malformed, not Ed25519 or does not match its own hash (the message says which).
        case invalidKey(String)
        /// The log key's name is not the origin pinned with it (a checkpoint's origin is its key's name).
        case originMismatch(origin: String, keyName: String)
        /// The witness policy is malformed or inconsistent (the message names the line).
        case invalidPolicy(String)
        /// The policy lists logs and the log key is not one of them.
        case logNotInPolicy(String)
        /// The pin file cannot be read, or is larger than `limit` bytes.
        case unreadable(path: String, limit: Int)
        /// The pin file is not UTF-8 text.
        case notText(path: String)
        /// The pin file has no `log` line and no log key was given.
        case noLogKey
        /// The pin file has several `log` lines (their names) and no log key was given to choose one.
        case severalLogKeys([String])

        /// What is wrong, for a person.
        public var description: String {
            switch self {
            case .invalidKey(let why): "invalid key: \(why)"
            case .originMismatch(let origin, let name):
                "the log key is named \(name), not the pinned origin \(origin)"
            case .invalidPolicy(let why): "invalid witness policy: \(why)"
            case .logNotInPolicy(let key): "the log key \(key) is not one of the policy's logs"
            case .unreadable(let path, let limit): "cannot read \(path) (or it is larger than \(limit) bytes)"
            case .notText(let path): "\(path) is not UTF-8 text"
            case .noLogKey: "the pin file has no `log` line: give the log's verifier key"
            case .severalLogKeys(let names):
                "the pin file has several `log` lines (\(names.joined(separator: ", "))): give the log's verifier key"
            }
        }
    }
}

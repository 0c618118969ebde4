/// Which sessions a logout ends.
public enum LogoutScope: String, Sendable, Hashable {
    /// This device's session.
    case thisSession = "this"
    /// Every session of the user, on every device.
    case allSessions = "all"
}

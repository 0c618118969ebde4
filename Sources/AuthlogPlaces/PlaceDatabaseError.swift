/// Why a MaxMind DB file cannot be used: missing, unreadable, too large, not a MaxMind DB file, or not the
/// kind the setting asks for. The description names the setting and the path, for the error at start.
public struct PlaceDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting that names the file (`places.city_database`).
    public var setting: String
    /// The file's path.
    public var path: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error.
    public init(setting: String, path: String, problem: String) {
        self.setting = setting
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(self.setting) \(self.path): \(self.problem)" }
}

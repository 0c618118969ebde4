import AuthlogServer
import Foundation

/// A configuration file written for one test, and loading it as `serve` does.
struct ConfigurationFile {
    let path: String

    /// Writes `json` to a new temporary file.
    init(_ json: String) throws {
        self.path =
            FileManager.default.temporaryDirectory.appendingPathComponent("authlog-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: self.path))
    }

    /// Loads the file with `environment` laid over it.
    func load(_ environment: [String: String] = [:]) throws -> LoadedConfiguration {
        try ServerConfiguration.load(path: self.path, environment: environment)
    }

    /// The one sentence loading refuses the file with, or nil when it loads.
    func refusal(_ environment: [String: String] = [:]) -> String? {
        do {
            _ = try self.load(environment)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

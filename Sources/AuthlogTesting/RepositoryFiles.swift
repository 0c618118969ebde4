public import Foundation

/// Files of this checkout (docs, deploy, sql), found from this source file's place in it, so that a test
/// reads them wherever its own file sits in the tree.
public enum RepositoryFiles {
    /// The checkout's root: the folder holding `Package.swift`.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The file at `relativePath` under the root, such as `deploy/alerts.yml`.
    public static func url(_ relativePath: String) -> URL {
        Self.root.appendingPathComponent(relativePath).standardizedFileURL
    }
}

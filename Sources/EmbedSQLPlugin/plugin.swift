import Foundation
import PackagePlugin

/// Embeds every file under the package's `sql/` folder into the target as `EmbeddedSQL.files`,
/// so that there is one copy of the SQL and the binary needs no files at run time.
@main
struct EmbedSQLPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL.appending(path: "sql")
        var files: [URL] = []
        if let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) {
            for case let url as URL in enumerator where url.pathExtension == "sql" {
                files.append(url)
            }
        }
        files.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) SQL files",
                executable: try context.tool(named: "SQLEmbedder").url,
                arguments: [output.path, root.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}

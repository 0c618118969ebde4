public import Foundation

extension RepositoryFiles {
    /// The first fenced code block of `language` (such as `python`) in the Markdown file at `relativePath` whose
    /// text contains `marker`, without its fences: the snippet a doc shows, for a test to run as written.
    /// - Throws: when the file cannot be read.
    public static func codeBlock(
        _ language: String,
        in relativePath: String,
        containing marker: String
    ) throws
        -> String?
    {
        let text = try String(contentsOf: Self.url(relativePath), encoding: .utf8)
        let blocks = text.components(separatedBy: "```\(language)\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
        return blocks.first { $0.contains(marker) }
    }
}

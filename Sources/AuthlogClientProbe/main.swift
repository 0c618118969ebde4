// A second process for the client's two-process refresh test (AuthlogIntegrationTests, Servers/Client): an
// AuthlogClient on a FileTokenStore that another process shares, sending rounds of concurrent authorized
// requests and printing what happened. Used only by the tests.
import AuthlogClient
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let options: ProbeOptions
do {
    options = try ProbeOptions(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("authlog-client-probe: \(error)\n\(ProbeOptions.usage)\n".utf8))
    exit(64)
}
let tally = await ProbeRun(options).run()
print(tally.summary)
exit(tally.isClean ? 0 : 1)

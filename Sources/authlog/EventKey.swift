import ArgumentParser
import AuthlogServer
import AuthlogStore

/// The event key of a command that appends events: `AUTHLOG_EVENT_KEY`, else `log.event_key` in the
/// configuration file at `config`. A key that is not 32 bytes of base64url is reported and exits 2.
func eventAuthenticator(config: String? = nil) throws -> EventAuthenticator? {
    do {
        return try loadConfiguration(config).eventAuthenticator()
    } catch let error as ServerConfiguration.Invalid {
        printError(error.description)
        throw ExitCode(2)
    }
}

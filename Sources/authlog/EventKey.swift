import ArgumentParser
import AuthlogServer
import AuthlogStore

/// The event key of a command that appends or verifies events: `AUTHLOG_EVENT_KEY` (the one place every
/// command reads it from, whatever file it is given). A key that is not 32 bytes of base64url is reported and
/// exits 2.
func eventAuthenticator() throws -> EventAuthenticator? {
    do {
        return try loadConfiguration(nil).eventAuthenticator()
    } catch let error as ServerConfiguration.Invalid {
        printError(error.description)
        throw ExitCode(2)
    }
}

import ArgumentParser
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `authlog serve`: the HTTP sign-in service.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP sign-in service.",
        discussion: """
            Reads the JSON configuration file given with --config (see deploy/authlog.example.json and \
            docs/configuration.md); any member may come from the environment instead (AUTHLOG_ and its path, \
            segments joined by __), and an unknown key or a wrong type exits 2; `authlog config check` shows \
            the configuration in force. SIGTERM or SIGINT stops \
            the server gracefully: it finishes the requests in flight, whose events are committed first. SIGHUP \
            reloads the places files of sign-in alerts.
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: "The port to listen on (overrides the configuration; 0 picks a free one).")
    var port: Int?

    @Option(name: .long, help: "The address to listen on (overrides the configuration; default 127.0.0.1).")
    var host: String?

    @Flag(name: .long, help: "Enable the development provider `dev`: sign-in without any proof. Never in production.")
    var dev = false

    func run() async throws {
        // SIGHUP reloads the places files (HangupReloadService): ignored until that service traps it, so that a
        // reload sent while the server starts cannot stop it.
        signal(SIGHUP, SIG_IGN)
        let logger = Self.makeLogger()
        var configuration = try loadConfiguration(self.config)
        if self.dev { configuration.development = true }
        if let port = self.port { configuration.port = port }
        let target = try await self.database.readTarget(
            self.replica,
            configured: (configuration.databaseURL, configuration.readDatabaseURL)
        )
        let pool = ConnectionPool(conninfo: target.primary, maximumConnections: 16)
        let components = try Self.components(configuration, pool: pool, replica: target.replica, logger: logger)
        if target.replica != nil {
            logger.info("reports, exports, proofs and session listings read from the read replica")
        }
        Self.warnAboutAccounts(configuration, components: components, logger: logger)
        let host = self.host ?? configuration.host ?? ConfigurationDefaults.host
        let app = try buildApplication(
            components: components,
            host: host,
            port: configuration.port ?? ConfigurationDefaults.port,
            logger: logger,
            onServerRunning: { port in
                logger.info(
                    "authlog is serving",
                    metadata: [
                        "address": .string("http://\(host):\(port)"),
                        "providers": .string(components.account.signin.providerNames.joined(separator: ",")),
                    ]
                )
            }
        )
        do {
            try await EventKeyCheck.check(components.store.authenticator, pool: pool)
        } catch let error as StoreError where error.code == .eventKey {
            printError(error.message)
            throw ExitCode(2)
        }
        Self.warnAboutLog(components, logger: logger)
        // The background work first and the HTTP server last: on SIGTERM or SIGINT the group stops them in
        // reverse order, so the server finishes its requests before the sealer (first) seals what they committed.
        let trimming = PeriodicService(name: "memory-trim", every: .seconds(10)) { Self.returnFreedMemory() }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: (components.backgroundServices(pool: pool, logger: logger) + [trimming, app]).map {
                    ServiceGroupConfiguration.ServiceConfiguration(service: $0)
                },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch  where ListenFailure.isAddressInUse(error) {
            printError(ListenFailure.addressInUse(host: host, port: configuration.port ?? ConfigurationDefaults.port))
            throw ExitCode(2)
        }
        logger.info("authlog stopped")
    }

    /// The logger, at `LOG_LEVEL` (default `info`).
    static func makeLogger() -> Logger {
        var logger = Logger(label: "authlog")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }

    /// The server's components over `pool` (and the replica's pool); a bad setting exits 2 with its message.
    static func components(
        _ configuration: ServerConfiguration,
        pool: ConnectionPool,
        replica: String?,
        logger: Logger
    ) throws -> ServerComponents {
        do {
            return try ServerComponents(
                configuration: configuration,
                pool: pool,
                readPool: replica.map { ConnectionPool(conninfo: $0, maximumConnections: 8) },
                accessTokenKey: try Self.accessTokenKey(configuration, logger: logger),
                fetcher: AsyncHTTPFetcher(
                    timeout: .seconds(
                        configuration.providerTimeoutSeconds ?? ConfigurationDefaults.providerTimeoutSeconds
                    )
                )
            )
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }
    }

    /// Warns about account settings that are fine for a trial and wrong in production.
    static func warnAboutAccounts(_ configuration: ServerConfiguration, components: ServerComponents, logger: Logger) {
        if configuration.development == true {
            logger.warning(
                "DEVELOPMENT MODE: the `dev` provider signs anyone in without a proof. Never run this in production."
            )
        }
        if configuration.dataKey == nil {
            logger.warning(
                "no data_key (AUTHLOG_DATA_KEY): personal data (names, emails) and provider refresh tokens are not kept"
            )
        }
        if configuration.placesKeepNoLocation {
            logger.warning(
                "places.city_database without data_key: the city and location of a sign-in are sealed under the user's key or not kept, so impossible_travel is never judged (countries and regions are)"
            )
        }
        if components.account.usesDevelopmentSubjectKey {
            logger.warning(
                "no subject_key or data_key (AUTHLOG_SUBJECT_KEY, AUTHLOG_DATA_KEY): subject and email hashes use a fixed development key"
            )
        }
        if components.account.registry.providers.isEmpty {
            logger.warning("no identity provider is configured; every sign-in will be refused")
        }
    }

    /// Warns about log settings that leave the log weaker than it can be: no event key, no signer state, no
    /// checkpoints.
    static func warnAboutLog(_ components: ServerComponents, logger: Logger) {
        if components.store.authenticator == nil {
            logger.warning(
                "no log.event_key (AUTHLOG_EVENT_KEY): events carry no MAC, so a database owner could forge one"
            )
        }
        if let checkpointer = components.checkpointer, checkpointer.statePath == nil {
            logger.warning(
                """
                the checkpoint signer keeps no state outside the database (set log.checkpoint_directory): it cannot \
                tell a rollback of the database from the truth
                """
            )
        }
        if components.checkpointer == nil {
            logger.warning("no log.checkpoint_key_file: no checkpoints are signed (authlog keys generate makes a key)")
            if !components.witnesses.witnesses.isEmpty {
                logger.warning("log.witnesses are not asked: there are no checkpoints to cosign")
            }
        }
    }

    /// Hands memory that was freed back to the system (every ten seconds). A burst of clients (bodies being
    /// read and dropped, say) raises the heap for a moment; glibc keeps freed pages in its arenas, so without
    /// this the process would stay at its peak size long after the burst.
    static func returnFreedMemory() {
        #if canImport(Glibc)
        // glibc's malloc_trim(3), looked up at run time: Swift's Glibc module does not import <malloc.h>.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    /// The access-token signing key: `AUTHLOG_ACCESS_TOKEN_KEY` (PEM), else the configured file, else a
    /// key made for this run only (tokens then do not survive a restart), with a warning.
    static func accessTokenKey(_ configuration: ServerConfiguration, logger: Logger) throws -> PrivateKey {
        if let pem = ProcessInfo.processInfo.environment["AUTHLOG_ACCESS_TOKEN_KEY"], !pem.isEmpty {
            return try PrivateKey(pem: pem)
        }
        if let file = configuration.accessToken?.signingKeyFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ServerConfiguration.Invalid(description: "access_token.signing_key_file: cannot read \(file)")
            }
            return try PrivateKey(pem: String(decoding: data, as: UTF8.self))
        }
        logger.warning(
            "no access_token.signing_key_file: using a key made for this run; access tokens end with the process"
        )
        return try PrivateKey.generate(for: .es256)
    }
}

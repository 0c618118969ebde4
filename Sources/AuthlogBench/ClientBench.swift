import ArgumentParser
import AuthlogClient
import AuthlogTesting
import Foundation

/// `authlog-bench client`: AuthlogClient's time per authorized request against a bare URLSession request, with
/// the monitor off and on; the device's time to verify a receipt; and the bytes a monitoring app fetches a day.
struct ClientBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Measure AuthlogClient: request overhead, receipt verification, and the monitor's bytes a day.",
        discussion: """
            Starts authlog's HTTP server in this process on fresh databases of the given cluster (development \
            mode, rate limits off, a checkpoint key and --witnesses witnesses) and drives its log directly: it \
            seals, signs and stores the witnesses' cosignatures itself instead of waiting for serve's clocks. \
            (1) Client overhead: GET /v1/log/receipt/{event_id} one at a time through AuthlogClient.send, with the \
            monitor off and on, and as a bare URLSession request with the same token, in alternating blocks; goal \
            at most 1.2 times the bare request's time. (2) Bytes a day: an app that signs in once and refreshes \
            every 15 minutes (96 refreshes), with the monitor on, counted on the wire by a TCP relay (heads and \
            bodies), on a log of only this app's events and on a log of --log-events events growing by each \
            --daily-growth; goal under 50 kB (50,000 bytes) a day. (3) Receipt verification on the device, per \
            receipt, beside the network time; goal under 1 ms each.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Requests each way for the overhead.")
    var requests = 4000

    @Option(help: "Requests per alternating block.")
    var block = 250

    @Option(help: "Events in the realistic log before the simulated days.")
    var logEvents = 1_000_000

    @Option(parsing: .upToNextOption, help: "Other people's events a day, one simulated day each.")
    var dailyGrowth: [Int] = [10_000, 100_000, 1_000_000]

    @Option(help: "Witnesses cosigning every checkpoint, all pinned as the quorum.")
    var witnesses = 2

    @Option(help: "Repetitions of each receipt verification figure, in 10 blocks.")
    var verifications = 200

    func validate() throws {
        guard self.requests > 0, self.block > 0 else { throw ValidationError("--requests and --block: at least 1") }
        guard (0...8).contains(self.witnesses) else { throw ValidationError("--witnesses: 0 to 8") }
        guard self.dailyGrowth.allSatisfy({ (0...100_000_000).contains($0) }), self.logEvents >= 0,
            self.verifications >= 10
        else { throw ValidationError("--daily-growth, --log-events, --verifications (at least 10): out of range") }
    }

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let apple = try await FakeIdentityProvider.start()
        defer { Task { await apple.stop() } }
        let small = try await MonitorBenchLog.start(
            database: try await BenchDatabase.make(in: cluster),
            apple: apple,
            witnessCount: self.witnesses
        )
        do {
            try await self.overhead(small)
            say("")
            say(
                "the day: 1 sign-in, then a refresh every 15 minutes (\(MonitorDay.refreshes)); each device's bytes "
                    + "counted at its own TCP relay (request and status lines, headers, bodies; plain HTTP/1.1 on "
                    + "loopback, so no TLS records or handshakes); every checkpoint cosigned by \(self.witnesses) "
                    + "witnesses before the device asks; a device's round comes its firstCheckDelay after the first "
                    + "event waiting (the batching window) and takes every event named by then; variants: defaults "
                    + "(firstCheckDelay \(Self.hours(MonitorDay.Variant.defaults.window)), each refresh checked with "
                    + "a chance of 1 in \(MonitorDay.Variant.defaults.refreshSampling)), and every refresh checked: "
                    + "in the default rounds, in a round per refresh (60 s), and in one round a day (24 h)"
            )
            say("bytes a day, small log (this app's events and the checkpoint records only):")
            try await self.day(on: small, otherPerDay: 0)
        } catch {
            await small.stop()
            throw error
        }
        await small.stop()

        say("")
        let database = try await BenchDatabase.make(in: cluster)
        let fillStart = ContinuousClock.now
        try await SealedLogFill.fill(database, events: self.logEvents)
        say(
            String(
                format: "realistic log: %d events sealed in %.0f s",
                self.logEvents,
                (ContinuousClock.now - fillStart).inSeconds
            )
        )
        let large = try await MonitorBenchLog.start(database: database, apple: apple, witnessCount: self.witnesses)
        do {
            var verification: (URL, String, [String])?
            for growth in self.dailyGrowth {
                say("")
                say(
                    "bytes a day, realistic log growing by \(growth) other events a day "
                        + "(\(growth / MonitorDay.refreshes) between two refreshes):"
                )
                verification = try await self.day(on: large, otherPerDay: growth) ?? verification
            }
            if let (url, token, ids) = verification {
                say("")
                try await self.verification(on: large, baseURL: url, accessToken: token, eventIDs: ids)
            }
        } catch {
            await large.stop()
            throw error
        }
        await large.stop()
    }

    /// A window in hours, such as "4 h".
    static func hours(_ window: Duration) -> String {
        String(format: "%g h", Double(window.components.seconds) / 3600)
    }

    /// The overhead per authorized request, with the monitor off and on.
    private func overhead(_ log: MonitorBenchLog) async throws {
        guard let baseURL = URL(string: log.runner.baseURL) else { throw ValidationError("no server URL") }
        let warmup = min(200, self.requests)
        say("client overhead: \(self.requests) authorized requests each way, one at a time, one URLSession")
        for (label, monitor) in [("monitor off", nil), ("monitor on", LogMonitor.Configuration(pins: try log.pins()))] {
            let result = try await ClientOverheadBench.measure(
                baseURL: baseURL,
                requests: self.requests,
                block: self.block,
                warmup: warmup,
                monitor: monitor
            )
            say(
                String(
                    format:
                        "%@: bare URLSession %.1f µs, AuthlogClient.send %.1f µs per request: %.3fx (goal <= 1.2x) %@",
                    label,
                    result.bareMicroseconds,
                    result.clientMicroseconds,
                    result.ratio,
                    result.ratio <= 1.2 ? "met" : "NOT met"
                )
            )
        }
    }

    /// One simulated day for each variant; returns the default device's URL, token and events for the
    /// verification figures.
    @discardableResult
    private func day(on log: MonitorBenchLog, otherPerDay: Int) async throws -> (URL, String, [String])? {
        let start = ContinuousClock.now
        let results = try await MonitorDay.live(
            on: log,
            otherPerDay: otherPerDay,
            variants: [.defaults, .everyRefresh, .minute, .daily]
        )
        say(
            String(
                format: "  (simulated in %.0f s; the log now holds %lld events)",
                (ContinuousClock.now - start).inSeconds,
                try await log.size()
            )
        )
        for result in results {
            let app = result.app.reduce(0) { $0 + $1.bytes }
            let bytes = MonitorBytes(result.monitor)
            say(
                "  \(result.variant.name): the app named \(result.eventsNamed) events (1 sign-in, "
                    + "\(MonitorDay.refreshes) refreshes), \(result.verified) verified in \(result.rounds) rounds"
                    + (result.alarm ? ", ALARM" : "")
                    + "; the app's own requests \(MonitorBytes.kilobytes(app)) on the wire"
            )
            say("    monitor: \(bytes.summary)")
            say("      (\(bytes.means))")
            let goal = 50_000
            if bytes.total < goal {
                say("    goal < 50 kB a day: met (\(MonitorBytes.kilobytes(bytes.total)))")
            } else {
                let largest = bytes.terms.prefix(2).map { "\($0.name) \(MonitorBytes.kilobytes($0.bytes))" }
                say(
                    String(
                        format: "    goal < 50 kB a day: NOT met, %.1fx the goal (%@ over); largest terms: %@",
                        Double(bytes.total) / Double(goal),
                        MonitorBytes.kilobytes(bytes.total - goal),
                        largest.joined(separator: ", ")
                    )
                )
            }
        }
        guard let first = results.first, let token = first.accessToken, let url = URL(string: log.runner.baseURL) else {
            return nil
        }
        return (url, token, first.verifiedIDs)
    }

    /// The device's verification time per receipt beside the network time.
    private func verification(
        on log: MonitorBenchLog,
        baseURL: URL,
        accessToken: String,
        eventIDs: [String]
    ) async throws {
        let figures = try await ReceiptVerificationBench.measure(
            baseURL: baseURL,
            accessToken: accessToken,
            eventIDs: eventIDs,
            pins: try log.pins(),
            repetitions: self.verifications
        )
        say(
            "receipt verification on the device (AuthlogClient's crypto: the system's libcrypto on Linux), "
                + "\(self.witnesses) cosignatures a note, log of \(try await log.size()) events, "
                + "median of 10 blocks of \(self.verifications / 10):"
        )
        for figure in figures where figure.receipts > 0 {
            let receipts = Double(figure.receipts)
            say(
                String(
                    format: "  %@: verify %.0f µs (%.1f µs a receipt), network %.0f µs (%.1f µs a receipt)",
                    figure.label,
                    figure.verify,
                    figure.verify / receipts,
                    figure.network,
                    figure.network / receipts
                )
            )
        }
        for figure in figures where figure.receipts == 0 {
            say(String(format: "  %@: %.0f µs", figure.label, figure.verify))
        }
        let worst = figures.filter { $0.receipts > 0 }.map { $0.verify / Double($0.receipts) }.max() ?? 0
        say(String(format: "goal < 1 ms a receipt: %.1f µs at worst %@", worst, worst < 1000 ? "met" : "NOT met"))
    }
}

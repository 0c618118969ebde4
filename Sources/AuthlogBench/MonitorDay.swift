import AuthlogClient
import AuthlogCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One simulated day of an app that signs in once and refreshes every 15 minutes (96 refreshes), with the
/// monitor on, against a ``MonitorBenchLog`` that other people's traffic grows by `otherPerDay` events:
/// 96 steps of (other people's events for 15 minutes, the app's refresh, the log sealed, signed and cosigned,
/// the monitor's round). Nothing waits for a clock: the log is driven directly.
///
/// Several devices live through the same day, one per ``Variant``, each through its own ``WireRecorder``, so
/// their bytes are counted apart on the wire.
enum MonitorDay {
    /// How a device checks its events.
    struct Variant: Sendable {
        let name: String
        /// Check each refresh with a chance of one in this many (``LogMonitor/Configuration/refreshSampling``).
        let refreshSampling: Int
        /// The batching window (``LogMonitor/Configuration/firstCheckDelay``): a round comes this long after the
        /// first event that waits, and takes every event named by then.
        let window: Duration

        /// The monitor's default configuration.
        static let defaults = Variant(
            name: "defaults",
            refreshSampling: LogMonitor.Configuration.defaultRefreshSampling,
            window: LogMonitor.Configuration.defaultFirstCheckDelay
        )
        /// The defaults, but every refresh checked.
        static let everyRefresh = Variant(
            name: "refreshSampling 1 (every refresh)",
            refreshSampling: 1,
            window: Self.defaults.window
        )
        /// Every refresh checked a minute after it is named: a round per refresh.
        static let minute = Variant(
            name: "refreshSampling 1, firstCheckDelay 60 s",
            refreshSampling: 1,
            window: .seconds(60)
        )
        /// Every refresh checked, all in one round at the end of the day.
        static let daily = Variant(
            name: "refreshSampling 1, firstCheckDelay 24 h",
            refreshSampling: 1,
            window: .seconds(86_400)
        )
    }

    /// What one device fetched during the day.
    struct Result: Sendable {
        let variant: Variant
        let eventsNamed: Int
        let verified: Int
        /// The verified events, in the order the answers named them.
        let verifiedIDs: [String]
        /// The session's access token at the end of the day.
        let accessToken: String?
        let app: [WireExchange]
        let monitor: [WireExchange]
        /// The monitor's rounds in the day.
        let rounds: Int
        let alarm: Bool
    }

    /// The refreshes in a day at one every 15 minutes.
    static let refreshes = 96
    /// The time between two refreshes.
    static let refreshInterval = Duration.seconds(900)

    /// Lives one day for each of `variants` on `log`; returns each device's exchanges.
    ///
    /// Simulated time: the sign-in at 0, refresh k at (k + 1) × 15 minutes. A device's round comes at its first
    /// waiting event's time plus its window, before any later event (the log has signed and its witnesses
    /// cosigned a checkpoint by then, as serve's 60 s clocks do); a round still owed at the end of the day runs
    /// then, so that every device checks the same events in its day.
    static func live(
        on log: MonitorBenchLog,
        otherPerDay: Int,
        variants: [Variant]
    ) async throws -> [Result] {
        var devices: [Device] = []
        for variant in variants { devices.append(try await Device.start(on: log, variant: variant)) }
        // When each device's first waiting event was named; the sign-in's at 0.
        var waitingSince: [Duration?] = devices.map { _ in .zero }
        var rounds = devices.map { _ in 0 }
        for step in 0..<Self.refreshes {
            let now = Self.refreshInterval * (step + 1)
            // Other people's events over the 15 minutes, spread evenly over the day.
            let share = otherPerDay * (step + 1) / Self.refreshes - otherPerDay * step / Self.refreshes
            try await log.otherTraffic(share)
            try await log.settle()
            for (index, device) in devices.enumerated() {
                guard let since = waitingSince[index], since + device.variant.window <= now else { continue }
                try await device.round()
                rounds[index] += 1
                waitingSince[index] = nil
            }
            for (index, device) in devices.enumerated() {
                try await device.refresh()
                if waitingSince[index] == nil { waitingSince[index] = now }
            }
        }
        try await log.settle()
        for (index, device) in devices.enumerated() where waitingSince[index] != nil {
            try await device.round()
            rounds[index] += 1
        }
        var results: [Result] = []
        for (device, rounds) in zip(devices, rounds) { results.append(try await device.finish(rounds: rounds)) }
        return results
    }

    /// One device: its client, its monitor and the recorder in front of the server.
    private final class Device: Sendable {
        let variant: Variant
        let client: AuthlogClient
        let monitor: LogMonitor
        let recorder: WireRecorder
        let session: URLSession

        private init(
            variant: Variant,
            client: AuthlogClient,
            monitor: LogMonitor,
            recorder: WireRecorder,
            session: URLSession
        ) {
            self.variant = variant
            self.client = client
            self.monitor = monitor
            self.recorder = recorder
            self.session = session
        }

        static func start(on log: MonitorBenchLog, variant: Variant) async throws -> Device {
            let recorder = try WireRecorder(targetPort: log.port)
            guard let baseURL = recorder.baseURL else { throw BenchFailure("no recorder URL") }
            let session = URLSession(configuration: .ephemeral)
            let client = AuthlogClient(
                baseURL: baseURL,
                session: session,
                // The app refreshes every 15 minutes of the simulated day: nothing refreshes behind its back.
                configuration: .init(refreshBeforeExpiry: nil),
                monitor: LogMonitor.Configuration(
                    pins: try log.pins(),
                    // A day: the rounds this benchmark runs are the only ones (see Variant).
                    firstCheckDelay: .seconds(86_400),
                    refreshSampling: variant.refreshSampling
                )
            )
            guard let monitor = client.monitor else { throw BenchFailure("the monitor is off") }
            _ = try await client.signIn(with: .dev(subject: "day-\(UUID().uuidString.prefix(8))"))
            return Device(variant: variant, client: client, monitor: monitor, recorder: recorder, session: session)
        }

        func refresh() async throws { try await self.client.refresh() }

        func round() async throws { try await self.monitor.checkNow() }

        func finish(rounds: Int) async throws -> Result {
            let exchanges = try self.recorder.exchanges()
            self.recorder.stop()
            self.session.invalidateAndCancel()
            let app = exchanges.filter { !$0.path.hasPrefix("/v1/log/") }
            var named: [String] = []
            for id in app.flatMap(\.eventIDs) where !named.contains(id) { named.append(id) }
            var verified: [String] = []
            for id in named {
                if case .verified = await self.monitor.receiptState(of: id) { verified.append(id) }
            }
            return Result(
                variant: self.variant,
                eventsNamed: named.count,
                verified: verified.count,
                verifiedIDs: verified,
                accessToken: try await self.client.currentTokens()?.accessToken,
                app: app,
                monitor: exchanges.filter { $0.path.hasPrefix("/v1/log/") },
                rounds: rounds,
                alarm: await self.monitor.state().alarm != nil
            )
        }
    }
}

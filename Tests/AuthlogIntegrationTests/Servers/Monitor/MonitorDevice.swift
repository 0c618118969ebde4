import AuthlogClient
import AuthlogTransparency
import Foundation

extension MonitorServers {
    /// The user's device: AuthlogClient through the proxy with the monitor on, pinning the log's origin and
    /// verifier key (and `witnesses`' cosigner keys with `quorum`, when given), with the default monitor
    /// configuration otherwise (its checkpoint store in memory) but that every refresh is checked (the default
    /// checks each with a chance of one half, and these tests follow given refreshes). The tests ask for the
    /// monitor's rounds with ``LogMonitor/checkNow()`` rather than wait for its first-check delay (4 hours by
    /// default); a round asked for is the same request the background task sends.
    func device(witnesses: [String] = [], quorum: Int = 1) throws -> (AuthlogClient, LogMonitor) {
        let pins =
            witnesses.isEmpty
            ? try LogPins(origin: MonitoredLog.origin, verifierKey: self.log.verifierKey)
            : try LogPins(
                origin: MonitoredLog.origin,
                verifierKey: self.log.verifierKey,
                witnesses: witnesses,
                quorum: quorum
            )
        let client = AuthlogClient(
            baseURL: self.proxy.baseURL,
            tokenStore: InMemoryTokenStore(),
            monitor: LogMonitor.Configuration(pins: pins, refreshSampling: 1)
        )
        guard let monitor = client.monitor else { throw CocoaError(.featureUnsupported) }
        return (client, monitor)
    }
}

extension LogMonitor {
    /// Whether every event of `ids` is verified.
    func allVerified(_ ids: [String]) async -> Bool {
        for id in ids {
            guard case .verified = await self.receiptState(of: id) else { return false }
        }
        return true
    }

    /// The states of `ids`, for a failure's message.
    func states(_ ids: [String]) async -> String {
        var lines: [String] = []
        for id in ids { lines.append("\(id): \(await self.receiptState(of: id))") }
        return lines.joined(separator: "; ")
    }
}

/// The first event of `stream` that `match` accepts, or nil when none came within `limit`.
func firstEvent(
    of stream: AsyncStream<MonitorEvent>,
    within limit: Duration,
    where match: @escaping @Sendable (MonitorEvent) -> Bool
) async -> MonitorEvent? {
    await withTaskGroup(of: MonitorEvent?.self) { group in
        group.addTask {
            for await event in stream where match(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

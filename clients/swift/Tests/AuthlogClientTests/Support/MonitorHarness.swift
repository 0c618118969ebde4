import AuthlogClient
import Foundation

/// Clients of a ``FakeAuthlog`` with the monitor on, configured for tests: the first check at once, short
/// back-offs.
enum MonitorHarness {
    /// A client of `server` (signed out unless `tokenStore` holds a session) whose monitor pins the server's log
    /// key and policy.
    static func client(
        _ server: FakeAuthlog,
        store: any CheckpointStore = InMemoryCheckpointStore(),
        tokenStore: any TokenStore = InMemoryTokenStore(),
        configure: (inout LogMonitor.Configuration) -> Void = { _ in }
    ) throws -> AuthlogClient {
        var configuration = LogMonitor.Configuration(
            pins: try server.keys.pins(),
            checkpointStore: store,
            firstCheckDelay: .zero,
            pendingRetryDelay: .milliseconds(200),
            retryDelay: .milliseconds(20),
            maximumBackoff: .milliseconds(200),
            refreshSampling: 1  // every refresh, so that a test knows what is asked (RefreshSamplingTests: 2)
        )
        configure(&configuration)
        return AuthlogClient(
            baseURL: server.baseURL,
            tokenStore: tokenStore,
            configuration: .init(refreshBeforeExpiry: nil),
            monitor: configuration
        )
    }

    /// The monitor of `client`.
    static func monitor(_ client: AuthlogClient) throws -> LogMonitor {
        guard let monitor = client.monitor else { throw MissingMonitor() }
        return monitor
    }

    struct MissingMonitor: Error {}

    /// Waits until every event in `ids` is settled (verified or refused); their states.
    static func settled(
        _ monitor: LogMonitor,
        _ ids: [String],
        within limit: Duration = .seconds(10)
    ) async
        -> [ReceiptState]
    {
        _ = await eventually(within: limit) {
            for id in ids {
                switch await monitor.receiptState(of: id) {
                case .verified, .refused: continue
                default: return false
                }
            }
            return true
        }
        var states: [ReceiptState] = []
        for id in ids { states.append(await monitor.receiptState(of: id)) }
        return states
    }
}

extension ReceiptState {
    /// The verified receipt, if it is one.
    var verified: VerifiedReceipt? {
        if case .verified(let receipt) = self { return receipt }
        return nil
    }

    /// The refusal, if it is one.
    var refusal: ReceiptRefusal? {
        if case .refused(let refusal) = self { return refusal }
        return nil
    }
}

import AuthlogCore
import Synchronization

/// The connections open on one server, in all and per client address, shared by every connection's
/// ``ConnectionGuard``: it admits a connection only while its address holds fewer than
/// ``ConnectionLimits/maximumPerAddress``, and tells when the server is busy (three quarters of the slots or
/// more taken), when idle connections get the shorter timeout.
final class ConnectionCounter: Sendable {
    private struct State {
        var open = 0
        var perAddress: [IPAddress: Int] = [:]
    }

    private let limits: ConnectionLimits
    private let trustedProxies: TrustedProxies
    private let state = Mutex(State())

    init(limits: ConnectionLimits, trustedProxies: TrustedProxies) {
        self.limits = limits
        self.trustedProxies = trustedProxies
    }

    /// Admits a new connection from `address`; `false` when that address already holds its share. A trusted
    /// proxy (whose connections carry many clients) and a peer without an IP address are not capped.
    func admit(_ address: IPAddress?) -> Bool {
        let capped = address.flatMap { self.trustedProxies.contains($0) ? nil : $0 }
        return self.state.withLock { state in
            if let capped {
                guard state.perAddress[capped, default: 0] < self.limits.maximumPerAddress else { return false }
                state.perAddress[capped, default: 0] += 1
            }
            state.open += 1
            return true
        }
    }

    /// Forgets an admitted connection from `address` once it has closed.
    func release(_ address: IPAddress?) {
        let capped = address.flatMap { self.trustedProxies.contains($0) ? nil : $0 }
        self.state.withLock { state in
            state.open -= 1
            guard let capped, let count = state.perAddress[capped] else { return }
            state.perAddress[capped] = count > 1 ? count - 1 : nil
        }
    }

    /// Whether three quarters of the slots or more are taken.
    var isBusy: Bool { self.state.withLock { $0.open * 4 >= self.limits.maximumConnections * 3 } }
}

import Foundation

/// The keeper's tokens as last set, readable without a hop onto the keeper's actor: an authorized request whose
/// access token is good for a while takes them from here.
///
/// `@unchecked Sendable`: `tokens` and `isRefreshing` are read and written only while `lock` is held.
final class TokenSnapshot: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: AuthTokens?
    private var isRefreshing = false

    /// Records the keeper's tokens.
    func set(_ tokens: AuthTokens?) { self.lock.withLock { self.tokens = tokens } }

    /// The tokens as last set, whatever their expiry.
    var current: AuthTokens? { self.lock.withLock { self.tokens } }

    /// Records whether a refresh is in flight.
    func setRefreshing(_ refreshing: Bool) { self.lock.withLock { self.isRefreshing = refreshing } }

    /// The tokens, when no refresh is in flight and the access token is good for more than `leeway` seconds.
    func usable(leeway: TimeInterval) -> AuthTokens? {
        self.lock.withLock {
            guard !self.isRefreshing, let tokens = self.tokens,
                tokens.accessTokenExpiresAt.timeIntervalSinceNow > leeway
            else { return nil }
            return tokens
        }
    }
}

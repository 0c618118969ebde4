public import AuthlogCrypto
public import Foundation

/// One provider's JSON Web Key Set, fetched from its pinned URL and cached.
///
/// - Freshness follows `Cache-Control: max-age`, clamped to ``Policy/minimumAge``…``Policy/maximumAge``
///   (default ``Policy/defaultAge`` when absent); a stale set is revalidated with `If-None-Match`.
/// - When the provider cannot be reached, the last good set is served for up to ``Policy/staleLimit``.
/// - A token whose `kid` is unknown causes at most one refetch per ``Policy/refetchCooldown``; callers that
///   arrive while it runs share it (single flight).
public actor JWKSCache {
    /// Timing rules.
    public struct Policy: Sendable {
        /// The shortest time a key set is fresh, whatever `max-age` says (seconds).
        public var minimumAge: TimeInterval = 300
        /// The longest time a key set is fresh, whatever `max-age` says (seconds).
        public var maximumAge: TimeInterval = 86_400
        /// How long a key set is fresh without `Cache-Control: max-age` (seconds).
        public var defaultAge: TimeInterval = 3_600
        /// How long a key set may still be served after the provider stopped answering (seconds).
        public var staleLimit: TimeInterval = 86_400
        /// The least time between two refetches caused by unknown key ids (seconds).
        public var refetchCooldown: TimeInterval = 60
        /// Creates the default policy.
        public init() {}
    }

    /// Counters for `/metrics`.
    public struct Statistics: Sendable, Equatable {
        /// Requests sent to the key URL.
        public var fetches = 0
        /// Requests that failed (unreachable, server error, unusable answer).
        public var failures = 0
    }

    /// The pinned key URL.
    public let url: String
    private let fetcher: any HTTPFetching
    private let policy: Policy
    private let now: @Sendable () -> Date
    private var keys: JWKSet?
    private var fetchedAt: Date?
    private var freshUntil: Date?
    private var entityTag: String?
    private var lastMissRefetch: Date?
    private var inFlight: Task<JWKSet, any Error>?
    /// What this cache has done so far.
    public private(set) var statistics = Statistics()

    /// Creates an empty cache for `url`.
    public init(
        url: String,
        fetcher: any HTTPFetching,
        policy: Policy = Policy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.fetcher = fetcher
        self.policy = policy
        self.now = now
    }

    /// The current key set: the cached one while fresh, otherwise a refetched one, otherwise a stale one
    /// no older than the stale limit.
    /// - Throws: ``ProviderError`` `.providerUnavailable` when no usable set can be had.
    public func currentKeys() async throws(ProviderError) -> JWKSet {
        if let keys = self.keys, let freshUntil = self.freshUntil, self.now() < freshUntil { return keys }
        return try await self.refresh()
    }

    /// Refetches after a token named a `kid` the current set lacks (or whose key failed to verify), unless a
    /// refetch for that reason ran within the cooldown. Returns `nil` when the cooldown holds.
    /// - Throws: ``ProviderError`` `.providerUnavailable` when the refetch fails.
    public func refetchForUnknownKey() async throws(ProviderError) -> JWKSet? {
        if let inFlight = self.inFlight { return try await Self.wait(for: inFlight) }
        if let last = self.lastMissRefetch, self.now().timeIntervalSince(last) < self.policy.refetchCooldown {
            return nil
        }
        self.lastMissRefetch = self.now()
        return try await self.refresh(force: true)
    }

    private func refresh(force: Bool = false) async throws(ProviderError) -> JWKSet {
        if let inFlight = self.inFlight { return try await Self.wait(for: inFlight) }
        let task = Task { try await self.download(revalidate: !force) }
        self.inFlight = task
        defer { self.inFlight = nil }
        do {
            return try await Self.wait(for: task)
        } catch {
            if let keys = self.keys, let fetchedAt = self.fetchedAt,
                self.now().timeIntervalSince(fetchedAt) <= self.policy.staleLimit
            {
                return keys
            }
            throw error
        }
    }

    private static func wait(for task: Task<JWKSet, any Error>) async throws(ProviderError) -> JWKSet {
        do {
            return try await task.value
        } catch let error as ProviderError {
            throw error
        } catch {
            throw ProviderError(.providerUnavailable, "the key set could not be fetched")
        }
    }

    private func download(revalidate: Bool) async throws -> JWKSet {
        self.statistics.fetches += 1
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if revalidate, let entityTag = self.entityTag, self.keys != nil { headers.append(("If-None-Match", entityTag)) }
        let response: OutboundResponse
        do {
            response = try await self.fetcher.fetch(OutboundRequest(url: self.url, headers: headers))
        } catch {
            self.statistics.failures += 1
            throw error
        }
        if response.status == 304, let keys = self.keys {
            self.markFetched(response)
            return keys
        }
        guard response.status == 200 else {
            self.statistics.failures += 1
            throw ProviderError(.providerUnavailable, "the key set URL answered with status \(response.status)")
        }
        do {
            let keys = try JWKSet(jsonBytes: response.body)
            self.keys = keys
            self.entityTag = response.header("ETag")
            self.markFetched(response)
            return keys
        } catch {
            self.statistics.failures += 1
            throw ProviderError(.providerUnavailable, "the key set is not usable: \(error)")
        }
    }

    private func markFetched(_ response: OutboundResponse) {
        let age = Self.maxAge(response.header("Cache-Control")).map {
            min(max($0, self.policy.minimumAge), self.policy.maximumAge)
        }
        let now = self.now()
        self.fetchedAt = now
        self.freshUntil = now.addingTimeInterval(age ?? self.policy.defaultAge)
    }

    /// The `max-age` of a `Cache-Control` header, in seconds.
    static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header else { return nil }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "max-age",
                let seconds = Int(parts[1].trimmingCharacters(in: .whitespaces)), seconds >= 0
            {
                return TimeInterval(seconds)
            }
        }
        return nil
    }
}

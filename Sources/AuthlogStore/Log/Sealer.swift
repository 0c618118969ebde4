public import AuthlogPostgres

/// The sealer of one process: runs ``SealStep`` until the queue of committed events is empty. The writers wake
/// it after every commit, so sealing follows a commit within milliseconds; `serve` also wakes it every second
/// (its background service `sealer`), which seals what another process committed and could not seal (it crashed between
/// its commit and its seal). Every process runs one; the locked log head makes them take turns.
public actor Sealer {
    private let pool: ConnectionPool
    private let limit: Int
    private let authenticator: EventAuthenticator?
    private let integrity: LogIntegrityStatus?
    private var isRunning = false
    private var isRequested = false
    private var passesStarted = 0
    private let passSpacing: Duration
    private var lastPassStart: ContinuousClock.Instant?
    private var waiters: [(pass: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    /// Creates the sealer of `pool`; each transaction seals at most `limit` events. With an `authenticator`
    /// it refuses queued rows without a valid MAC and counts them in `integrity`.
    ///
    /// A pass starts at most once per `passSpacing` (10 ms): under light load every commit would otherwise
    /// cost a sealing transaction and a second commit of its own, while one pass a few milliseconds later
    /// seals the commits of that interval together. Under heavy load a pass takes longer than that, so the
    /// spacing adds no delay.
    public init(
        pool: ConnectionPool,
        limit: Int = 5000,
        authenticator: EventAuthenticator? = nil,
        integrity: LogIntegrityStatus? = nil,
        passSpacing: Duration = .milliseconds(10)
    ) {
        self.passSpacing = passSpacing
        self.pool = pool
        self.limit = max(1, limit)
        self.authenticator = authenticator
        self.integrity = integrity
    }

    /// Asks for a pass over the queue; returns at once.
    public func wake() {
        self.isRequested = true
        guard !self.isRunning else { return }
        self.isRunning = true
        Task { await self.run() }
    }

    /// Returns once every event committed before the call has a position, sealed by this process or another.
    /// - Throws: ``StoreError`` when the database cannot be reached to seal.
    public func sealPending() async throws {
        try await withCheckedThrowingContinuation { continuation in
            // A pass that starts after this call sees every event committed before it.
            self.waiters.append((self.passesStarted + 1, continuation))
            self.wake()
        }
    }

    private func run() async {
        while self.isRequested {
            if let last = self.lastPassStart, ContinuousClock.now < last + self.passSpacing {
                try? await Task.sleep(until: last + self.passSpacing)
            }
            self.lastPassStart = ContinuousClock.now
            self.isRequested = false
            self.passesStarted += 1
            let pass = self.passesStarted
            let failure: (any Error)?
            do {
                try await self.drain()
                failure = nil
            } catch {
                failure = error
            }
            let ready = self.waiters.filter { $0.pass <= pass }
            self.waiters.removeAll { $0.pass <= pass }
            for waiter in ready {
                if let failure { waiter.continuation.resume(throwing: failure) } else { waiter.continuation.resume() }
            }
        }
        self.isRunning = false
    }

    private func drain() async throws {
        let connection = try await self.pool.acquire()
        do {
            while true {
                let sealed = try await Self.step(limit: self.limit, authenticator: self.authenticator, on: connection)
                if sealed.refused > 0 { self.integrity?.refusedEvents(sealed.refused) }
                if sealed.count + sealed.refused < self.limit { break }
            }
            await self.pool.release(connection)
        } catch {
            await self.pool.release(connection)
            throw error
        }
    }

    private static func step(
        limit: Int,
        authenticator: EventAuthenticator?,
        on connection: isolated Connection
    ) throws -> SealStep.Sealed {
        try SealStep.run(limit: limit, ownsTransaction: true, authenticator: authenticator, on: connection)
    }
}

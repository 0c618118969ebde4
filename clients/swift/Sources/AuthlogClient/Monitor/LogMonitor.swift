import AuthlogTransparency
import Foundation

/// The device as a monitor of authlog's log: for every event an answer names, it fetches the receipt in the
/// background (batched, `GET /v1/log/receipts`, with the session's access token) and verifies it offline
/// against the pins: included in a checkpoint the log signed, cosigned by the policy's quorum, and describing
/// this user's own action (the user, the session, a time near the request). It keeps the newest checkpoint it
/// verified and checks that every other checkpoint it is shown is consistent with it; a contradiction is a
/// ``SplitViewAlarm``.
///
/// The client makes one when it is given pins (``AuthlogClient/monitor``); the app follows it with
/// ``AuthlogClient/monitorEvents()``. Its background task runs only while events wait for a receipt of the
/// user signed in.
public actor LogMonitor {
    /// The largest checkpoint note read (a note with 64 cosignatures is under 16 KiB).
    public static let maximumNoteBytes = 32 * 1024

    /// The configuration, its numbers bounded.
    public nonisolated let configuration: Configuration
    /// The pins the monitor verifies with.
    public nonisolated var pins: LogPins { self.configuration.pins }

    nonisolated let events: StateBroadcaster<MonitorEvent, MonitorState>
    let sender: AuthorizedSender
    var queue: MonitorQueue
    var kept: KeptCheckpoint?
    var alarm: SplitViewAlarm?
    /// Alarms already raised (kept note, shown note), so that a view shown again is not raised again.
    var raised: [String] = []
    /// Smaller checkpoints proven to be prefixes of the kept one.
    var provenOlder: [Checkpoint] = []
    /// No round starts before this (after failures, or a 429's `Retry-After`).
    var pausedUntil: ContinuousClock.Instant?
    /// Failed rounds in a row.
    var failures = 0
    /// Whether the log said it can no longer prove anything from the kept size (`410 dropped`: retention dropped
    /// it): receipts are asked for without `from`, and the next bigger checkpoint the witnesses' quorum cosigned
    /// is kept instead.
    var reanchoring = false
    /// Verifies batches under the pins, remembering the last note verified (a round against the same checkpoint
    /// skips its signature checks).
    var receiptVerifier: ReceiptBatchVerifier
    private var loading: Task<Void, Never>?
    private(set) var isLoaded = false
    private var worker: Task<Void, Never>?
    private var sleeper: Task<Void, Never>?
    /// The turns held, each with the work waiting for it (``acquire(_:)``).
    var turns: [Turn: [CheckedContinuation<Void, Never>]] = [:]
    /// Whether a background write of the record is asked for and has not taken its snapshot yet.
    var writeAsked = false

    init(configuration: Configuration, sender: AuthorizedSender) {
        let bounded = configuration.bounded
        self.configuration = bounded
        self.sender = sender
        self.receiptVerifier = ReceiptBatchVerifier(logKey: bounded.pins.logKey, policy: bounded.pins.policy)
        self.queue = MonitorQueue(maximumQueued: bounded.maximumQueued, maximumOutcomes: bounded.maximumOutcomes)
        self.events = StateBroadcaster { .initialState($0) }
    }

    deinit {
        self.worker?.cancel()
        self.sleeper?.cancel()
    }

    /// The monitor's events: first ``MonitorEvent/initialState(_:)`` (the kept checkpoint and a standing alarm,
    /// read from the store if they were not yet), then receipts settling, checkpoints kept, alarms and errors.
    /// Each call opens a new stream.
    public nonisolated func monitorEvents() -> AsyncStream<MonitorEvent> {
        let (stream, needsState) = self.events.stream()
        if needsState { Task { await self.loadIfNeeded() } }
        return stream
    }

    /// The kept checkpoint, the standing alarm and how many events wait.
    public func state() async -> MonitorState {
        await self.loadIfNeeded()
        return self.currentState
    }

    /// Where the monitor stands on the event `eventID`.
    public func receiptState(of eventID: String) async -> ReceiptState {
        await self.loadIfNeeded()
        let user = await self.sender.identity()?.userID
        return self.queue.state(of: eventID.lowercased(), currentUser: user)
    }

    /// Asks now for the receipts of every event of the signed-in user that waits (in batches of
    /// ``Configuration/batchSize``), whatever their wait, and settles what the answers settle.
    /// - Throws: ``MonitorError``: the first round that failed (`.signedOut` without a session).
    public func checkNow() async throws(MonitorError) {
        await self.loadIfNeeded()
        guard self.isLoaded else { throw .store("the checkpoint store cannot be read") }
        guard let user = await self.sender.identity()?.userID else { throw .signedOut }
        var asked: Set<String> = []
        while true {
            let batch = self.queue.due(for: user, at: nil, limit: Int.max).filter { !asked.contains($0.id) }
                .prefix(self.configuration.batchSize)
            guard !batch.isEmpty else { return }
            asked.formUnion(batch.map(\.id))
            try await self.round(Array(batch))
        }
    }

    /// Clears the standing alarm, in the store too (the app has shown it and kept or sent its evidence). The
    /// kept checkpoint stays; a contradiction shown again raises the alarm again.
    /// - Throws: ``MonitorError/store(_:)`` when the store cannot be written (the alarm then stands).
    public func clearAlarm() async throws(MonitorError) {
        await self.loadIfNeeded()
        guard let standing = self.alarm else { return }
        self.alarm = nil
        do {
            try await self.save()
        } catch {
            self.alarm = standing
            throw error
        }
        self.raised = []
        self.events.yield(.alarmCleared)
        self.publishState()
    }

    /// Queues the events `ids` named by an answer that `expectation` describes; ids queued or settled already
    /// are left as they are. A full queue takes no more and says so.
    func note(_ ids: [String], expectation: EventExpectation) async {
        await self.loadIfNeeded()
        self.enqueue(ids.map { ($0, expectation) }, due: .now + self.configuration.firstCheckDelay)
    }

    /// Queues the events `ids` a refresh answer named with a chance of one in ``Configuration/refreshSampling``,
    /// drawn from the system's secure generator (a counter would tell the server which refreshes are checked).
    func noteRefresh(_ ids: [String], expectation: EventExpectation) async {
        let one = self.configuration.refreshSampling
        guard one > 0 else { return }
        var generator = SystemRandomNumberGenerator()
        guard one == 1 || Int.random(in: 0..<one, using: &generator) == 0 else { return }
        await self.note(ids, expectation: expectation)
    }

    /// The states of the activity's `entries` (of the user `userID`), queuing those the monitor has not seen,
    /// to be asked for now.
    func check(_ entries: [ActivityEntry], userID: String) async -> [ReceiptState] {
        await self.loadIfNeeded()
        let items = entries.compactMap { entry -> (String, EventExpectation)? in
            guard let id = EventIDs.normalized(entry.id) else { return nil }
            let expectation = EventExpectation(
                userID: userID,
                sessions: .anyOfUser,
                requestedAt: entry.time,
                listedPosition: entry.position
            )
            return (id, expectation)
        }
        self.enqueue(items, due: .now)
        return entries.map { self.queue.state(of: $0.id.lowercased(), currentUser: userID) }
    }

    /// Forgets the queued events of `userID` (its account was deleted: authlog no longer answers for them).
    func forget(userID: String) async {
        await self.loadIfNeeded()
        self.queue.forget(userID: userID)
        self.publishState()
        self.writeSoon()
    }

    private func enqueue(_ items: [(String, EventExpectation)], due: ContinuousClock.Instant) {
        var dropped = 0
        var added = false
        for (id, expectation) in items {
            switch self.queue.insert(id, expectation: expectation, due: due) {
            case .added: added = true
            case .known: break
            case .full: dropped += 1
            }
        }
        if dropped > 0 { self.events.yield(.queueFull(dropped: dropped)) }
        guard added else { return }
        self.publishState()
        self.writeSoon()
        self.startWorker()
    }

    // MARK: State

    var currentState: MonitorState {
        MonitorState(keptCheckpoint: self.kept?.checkpoint, alarm: self.alarm, queued: self.queue.count)
    }

    /// Tells new listeners the state from now on.
    func publishState() {
        guard self.isLoaded else { return }
        self.events.record(self.currentState)
    }

    /// Reads the store once: the kept note (opened again with the pinned key; one that does not open is
    /// dropped and reported), a standing alarm and the events that waited (the background task starts for them).
    func loadIfNeeded() async {
        if self.isLoaded { return }
        if let loading = self.loading { return await loading.value }
        let task = Task { await self.load() }
        self.loading = task
        await task.value
    }

    private func load() async {
        var record = MonitorRecord()
        do {
            record = try await self.configuration.checkpointStore.load()
        } catch {
            // Not an empty record: the store may hold the kept checkpoint and an alarm that cannot be read now (a
            // file protected until the first unlock). Nothing is judged or written until it is read; the next
            // call reads it again.
            // No state is told meanwhile: "no alarm" may not be true.
            self.events.yield(.error(error as? MonitorError ?? .store("the checkpoint store cannot be read")))
            self.loading = nil
            return
        }
        if let note = record.checkpoint {
            do {
                self.kept = KeptCheckpoint(note: note, checkpoint: try self.open(note))
            } catch {
                self.events.yield(.error(error))
            }
        }
        self.alarm = record.alarm
        let configuration = self.configuration
        let restored = self.queue.restore(
            record.queue,
            now: .now,
            wallNow: Date(),
            latest: max(configuration.firstCheckDelay, configuration.pendingRetryDelay, configuration.maximumBackoff)
        )
        self.isLoaded = true
        self.publishState()
        if restored > 0 { self.startWorker() }
    }

    /// The checkpoint of `note` once the pinned key opened it and its origin is the pinned one.
    /// - Throws: ``MonitorError``: `.noteTooLarge`, `.checkpoint`, `.notACheckpoint`, `.wrongOrigin`.
    func open(_ note: String) throws(MonitorError) -> Checkpoint {
        guard note.utf8.count <= Self.maximumNoteBytes else { throw .noteTooLarge(limit: Self.maximumNoteBytes) }
        // The pinned key verified it already (the pins' origin is the key's name).
        if let checkpoint = self.receiptVerifier.checkpoint(ifVerified: note) { return checkpoint }
        let body: String
        do {
            body = try self.pins.logKey.open(note)
        } catch {
            throw .checkpoint(error)
        }
        guard let checkpoint = Checkpoint(body: body) else { throw .notACheckpoint }
        guard checkpoint.origin == self.pins.origin else {
            throw .wrongOrigin(checkpoint: checkpoint.origin, pinned: self.pins.origin)
        }
        return checkpoint
    }

    // MARK: The background task

    /// Starts the background task, or wakes it when it waits.
    private func startWorker() {
        guard self.worker == nil else {
            self.sleeper?.cancel()
            return
        }
        // The task holds the monitor only while a step runs, never while it waits.
        self.worker = Task { [weak self] in
            while let wait = await self?.step() { await wait.value }
        }
    }

    /// One step of the background task: a round for the events due, then what to wait for; nil (and the task
    /// ends) when no event of the signed-in user waits.
    private func step() async -> Task<Void, Never>? {
        await self.loadIfNeeded()
        guard !Task.isCancelled, let user = await self.sender.identity()?.userID else { return self.stop() }
        // The kept checkpoint is not known while the store cannot be read: nothing is judged against nothing.
        guard self.isLoaded else { return self.sleep(until: .now + self.configuration.pendingRetryDelay) }
        let now = ContinuousClock.now
        if let paused = self.pausedUntil, paused > now { return self.sleep(until: paused) }
        let batch = self.queue.batch(for: user, at: now, limit: self.configuration.batchSize)
        guard !batch.isEmpty else {
            guard let next = self.queue.nextDue(for: user) else { return self.stop() }
            return self.sleep(until: next)
        }
        // The round reports its failure on the stream and sets the back-off; the next step waits for it.
        try? await self.round(batch)
        return self.sleep(until: now)
    }

    private func stop() -> Task<Void, Never>? {
        self.worker = nil
        self.sleeper = nil
        return nil
    }

    /// A wait until `instant`, cut short when new events are queued.
    private func sleep(until instant: ContinuousClock.Instant) -> Task<Void, Never> {
        let task = Task { _ = try? await Task.sleep(until: instant, clock: .continuous) }
        self.sleeper = task
        return task
    }
}

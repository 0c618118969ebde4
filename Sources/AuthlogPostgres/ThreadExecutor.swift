import Foundation

/// A serial executor that runs every job on one dedicated thread, so that blocking libpq calls made by
/// the actor it serves never occupy Swift's small cooperative thread pool.
///
/// `@unchecked Sendable`: the job queue and the stop flag are only touched while `condition` is locked;
/// the thread itself is started once in `init` and never touched again.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isStopping = false

    /// Starts the thread, named `name` for debuggers and `top -H`.
    init(name: String) {
        let thread = Thread { [self] in self.runJobs() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.condition.lock()
        self.jobs.append(job)
        self.condition.signal()
        self.condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish the jobs already queued and exit.
    func stop() {
        self.condition.lock()
        self.isStopping = true
        self.condition.signal()
        self.condition.unlock()
    }

    private func runJobs() {
        var batch: [UnownedJob] = []
        while true {
            self.condition.lock()
            while self.jobs.isEmpty && !self.isStopping {
                self.condition.wait()
            }
            if self.jobs.isEmpty {
                self.condition.unlock()
                return
            }
            swap(&batch, &self.jobs)
            self.condition.unlock()
            for job in batch {
                job.runSynchronously(on: self.asUnownedSerialExecutor())
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

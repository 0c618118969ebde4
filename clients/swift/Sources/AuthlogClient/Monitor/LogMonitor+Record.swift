import Foundation

extension LogMonitor {
    /// Writes the record (the kept note, the standing alarm and the queue as they are when this write's turn
    /// comes: writes run one at a time, so a later state is never overwritten by an earlier one). Nothing is
    /// written before the store was read.
    /// - Throws: ``MonitorError/store(_:)``.
    func save() async throws(MonitorError) {
        await self.acquire(.write)
        defer { self.release(.write) }
        self.writeAsked = false
        guard self.isLoaded else { return }
        let record = MonitorRecord(
            checkpoint: self.kept?.note,
            alarm: self.alarm,
            queue: self.queue.stored(now: .now, wallNow: Date())
        )
        do {
            try await self.configuration.checkpointStore.save(record)
        } catch let error as MonitorError {
            throw error
        } catch {
            throw .store("the checkpoint store cannot be written")
        }
    }

    /// Writes the record in a task of its own, so that the caller (a sign-in, a refresh) does not wait for the
    /// disk; writes asked for before that one takes its snapshot are the same write. A failure is reported on
    /// the stream.
    func writeSoon() {
        guard !self.writeAsked else { return }
        self.writeAsked = true
        Task { await self.saveReportingFailure() }
    }

    /// ``save()``, a failure reported on the stream.
    func saveReportingFailure() async {
        do {
            try await self.save()
        } catch {
            self.events.yield(.error(error))
        }
    }
}

import AuthlogTransparency
import Foundation

extension LogMonitor {
    /// Checks the shown checkpoint (its note opened with the pinned key) against the kept one: keeps it
    /// when it is the first or a bigger one proven consistent, asks the log to prove a smaller one is a prefix,
    /// and raises the alarm on a contradiction.
    /// - Returns: the alarm's reason when it raised one (the batch's receipts are then refused).
    /// - Throws: ``MonitorError``: a bad answer that proves nothing either way, or no answer from the proof route.
    func compare(
        _ shown: Checkpoint,
        note: String,
        consistency: ReceiptsAnswer.Consistency
    ) async throws(MonitorError) -> SplitViewAlarm.Reason? {
        let crypto = self.pins.logKey.crypto
        var judgement = CheckpointJudge.judge(kept: self.kept, shown: shown, consistency: consistency, crypto: crypto)
        if self.reanchoring, let kept = self.kept, shown.size > kept.checkpoint.size {
            // Nothing can prove a bigger tree from a size retention dropped: the witnesses' quorum vouches for it
            // instead (each witness refuses a checkpoint that does not extend the one it holds). Only when the
            // quorum asks for at least one witness, and only from a kept checkpoint the quorum vouched for too: a
            // kept tree no witness saw (a fork the log showed this device alone) would otherwise be left for the
            // witnessed one without any proof that one extends the other, and a 410 would erase the split view.
            guard let policy = self.pins.policy, policy.minimumCosigners > 0,
                policy.check(note: kept.note)?.quorumMet == true,
                policy.check(note: note)?.quorumMet == true
            else { return nil }
            judgement = .adopt
        } else if judgement == .needsOlderProof, let kept = self.kept {
            judgement = try await self.judgeOlder(shown, kept: kept)
        }
        switch judgement {
        case .same:
            // The same tree, its note now cosigned by the quorum where the kept one was not (a checkpoint is
            // shown before the witnesses cosign it): the cosigned note is kept, so that a 410 later finds a kept
            // checkpoint the quorum vouched for.
            if let kept = self.kept, let policy = self.pins.policy, policy.minimumCosigners > 0,
                policy.check(note: note)?.quorumMet == true, policy.check(note: kept.note)?.quorumMet != true
            {
                self.kept = KeptCheckpoint(note: note, checkpoint: shown)
                await self.saveReportingFailure()
            }
            return nil
        case .needsOlderProof:
            return nil
        case .adopt:
            self.kept = KeptCheckpoint(note: note, checkpoint: shown)
            self.provenOlder = []
            self.reanchoring = false
            await self.saveReportingFailure()
            self.events.yield(.checkpointKept(shown))
            return nil
        case .alarm(let reason, let detail, let proof):
            guard let kept = self.kept else { return nil }
            await self.raise(
                SplitViewAlarm(
                    reason: reason,
                    keptNote: kept.note,
                    shownNote: note,
                    keptSize: kept.checkpoint.size,
                    shownSize: shown.size,
                    consistencyProof: proof,
                    detail: detail,
                    detectedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
                )
            )
            return reason
        case .error(let error):
            throw error
        }
    }

    /// Whether the smaller `shown` tree is a prefix of `kept`, by the proof route
    /// (`GET /v1/log/proof/consistency?from=<shown>&to=<kept>`, public): `.same`, or the rollback alarm when
    /// the proof fails or the log says it has no tree of the kept size (`400 out_of_range`).
    private func judgeOlder(
        _ shown: Checkpoint,
        kept: KeptCheckpoint
    ) async throws(MonitorError)
        -> CheckpointJudgement
    {
        if self.provenOlder.contains(shown) { return .same }
        var proof: [[UInt8]] = []
        if shown.size > 0 {
            let (data, response) = try await self.ask(
                "/v1/log/proof/consistency",
                query: [
                    URLQueryItem(name: "from", value: String(shown.size)),
                    URLQueryItem(name: "to", value: String(kept.checkpoint.size)),
                ],
                authorized: false
            )
            let code = APIConnection.errorCode(data)
            switch response.statusCode {
            case 200:
                proof = try ConsistencyAnswer.proof(
                    data,
                    from: shown.size,
                    to: kept.checkpoint.size,
                    limit: self.configuration.maximumAnswerBytes
                )
            case 400 where code == "out_of_range":
                return .alarm(
                    .rollback,
                    detail: "The log says it has no tree of \(kept.checkpoint.size) (400 out_of_range).",
                    proof: nil
                )
            case 429:
                self.pause(after: response)
                throw .http(status: 429, code: code)
            default:
                throw .http(status: response.statusCode, code: code)
            }
        }
        let judgement = CheckpointJudge.olderTree(
            kept: kept,
            shown: shown,
            proof: proof,
            crypto: self.pins.logKey.crypto
        )
        if judgement == .same {
            self.provenOlder.append(shown)
            if self.provenOlder.count > 8 { self.provenOlder.removeFirst() }
        }
        return judgement
    }

    /// Raises `alarm`, once per pair of notes: it becomes the standing alarm (kept in the store until the app
    /// clears it) unless one stands already, goes to every listener, and is posted to the configured URL.
    func raise(_ alarm: SplitViewAlarm) async {
        let pair = alarm.keptNote + "\n\n\n" + alarm.shownNote
        let standing = self.alarm.map { $0.keptNote + "\n\n\n" + $0.shownNote }
        guard pair != standing, !self.raised.contains(pair) else { return }
        self.raised.append(pair)
        if self.raised.count > 16 { self.raised.removeFirst() }
        if self.alarm == nil {
            self.alarm = alarm
            await self.saveReportingFailure()
        }
        self.events.yield(.alarm(alarm))
        self.publishState()
        guard let url = self.configuration.alarmReportURL else { return }
        let reporter = AlarmReporter(
            url: url,
            transport: self.sender.connection.transport,
            retries: self.configuration.alarmReportRetries,
            retryDelay: self.configuration.retryDelay
        )
        let events = self.events
        Task { events.yield(.alarmReported(delivered: await reporter.report(alarm))) }
    }
}

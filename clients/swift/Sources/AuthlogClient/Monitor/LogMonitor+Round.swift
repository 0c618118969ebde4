import AuthlogTransparency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LogMonitor {
    /// One request for the receipts of `batch` (one user's events, at most 64), and what its answer settles;
    /// the record is written after it. A failure is reported on the stream, sets the back-off and counts against
    /// the events when the answer was bad.
    /// - Throws: ``MonitorError``: why the round failed.
    func round(_ batch: [MonitorQueue.Item]) async throws(MonitorError) {
        // Rounds run one at a time: they share the kept checkpoint.
        await self.acquire(.round)
        defer {
            self.release(.round)
            self.publishState()
        }
        do throws(MonitorError) {
            try await self.fetch(batch)
            self.failures = 0
            self.pausedUntil = nil
            await self.saveReportingFailure()
        } catch {
            self.failed(batch, error)
            await self.saveReportingFailure()
            throw error
        }
    }

    /// Asks for the receipts of `batch` and settles them.
    private func fetch(_ batch: [MonitorQueue.Item]) async throws(MonitorError) {
        let from = self.reanchoring ? 0 : self.kept?.checkpoint.size ?? 0
        var query = [URLQueryItem(name: "ids", value: batch.map(\.id).joined(separator: ","))]
        if from >= 1 { query.append(URLQueryItem(name: "from", value: String(from))) }
        // The events as text, one character per byte: gzip then sees what one user's events repeat (a server
        // that does not know the parameter answers base64, which ReceiptsAnswer reads as well).
        query.append(URLQueryItem(name: "event_form", value: "text"))
        let (data, response) = try await self.ask("/v1/log/receipts", query: query, authorized: true)
        let wait = Self.retryAfter(response, limit: self.configuration.maximumBackoff)
        let later = ContinuousClock.now + (wait ?? self.configuration.pendingRetryDelay)
        switch response.statusCode {
        case 200, 202: break
        case 409 where APIConnection.errorCode(data) == "not_checkpointed":
            // The log has signed no checkpoint yet: every event is pending until it has.
            for var item in batch {
                item.state = .pending(.notCheckpointed)
                item.due = later
                self.reschedule(item)
            }
            return
        case 410 where from >= 1 && APIConnection.errorCode(data) == "dropped":
            // Retention dropped the kept size: no proof from it exists any more. Ask without it from now on.
            self.reanchoring = true
            throw .http(status: 410, code: "dropped")
        case 429:
            self.pause(after: response)
            throw .http(status: 429, code: APIConnection.errorCode(data))
        default:
            throw .http(status: response.statusCode, code: APIConnection.errorCode(data))
        }
        let answer = try ReceiptsAnswer.parse(
            data,
            asked: Set(batch.map(\.id)),
            limit: self.configuration.maximumAnswerBytes
        )
        let shown = try self.open(answer.batch.note)
        let alarm = try await self.compare(shown, note: answer.batch.note, consistency: answer.consistency)
        var items = Dictionary(batch.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in items.keys { items[id]?.badAnswers = 0 }
        if let alarm {
            for entry in answer.batch.entries { self.settle(entry.eventID, .refused(.splitView(alarm))) }
        } else {
            self.settleReceipts(answer.batch, items: items, retryAt: later)
        }
        for id in answer.pending {
            guard var item = items[id] else { continue }
            item.state = .pending(.notCheckpointed)
            item.due = later
            self.reschedule(item)
        }
        let answered = Set(answer.batch.entries.map(\.eventID)).union(answer.pending)
        for (id, var item) in items where !answered.contains(id) {
            // Not found, or left out: the same to the device.
            item.notFoundTries += 1
            if item.notFoundTries >= self.configuration.notFoundTries {
                self.settle(id, .refused(.notFound(tries: item.notFoundTries)))
            } else {
                item.state = .pending(.notFoundYet(tries: item.notFoundTries))
                item.due = .now + self.backoff(item.notFoundTries)
                self.reschedule(item)
            }
        }
    }

    /// Settles the receipts of `batch` (a note already opened): a proof that fails refuses them all; otherwise
    /// each is verified, refused for what its bytes say, or pending below the quorum until `retryAt`.
    private func settleReceipts(
        _ batch: ReceiptBatch,
        items: [String: MonitorQueue.Item],
        retryAt: ContinuousClock.Instant
    ) {
        let verified: ReceiptBatch.Verified
        do {
            verified = try self.receiptVerifier.verify(batch)
        } catch {
            for entry in batch.entries { self.settle(entry.eventID, .refused(.proofFailed(error))) }
            return
        }
        for (entry, event) in zip(batch.entries, verified.events) {
            guard var item = items[entry.eventID] else { continue }
            if let refusal = item.expectation.refusal(
                of: event,
                position: entry.position,
                window: self.configuration.timeWindow
            ) {
                self.settle(entry.eventID, .refused(refusal))
            } else if verified.quorumMet {
                let receipt = VerifiedReceipt(
                    eventID: entry.eventID,
                    type: event.type,
                    position: entry.position,
                    occurredAt: EventExpectation.date(microseconds: event.occurredAtMicroseconds),
                    sessionID: event.sessionID,
                    checkpointSize: verified.checkpoint.size,
                    witnessedBy: verified.cosigned
                )
                self.settle(entry.eventID, .verified(receipt))
            } else {
                item.state = .pending(.belowQuorum(cosigned: verified.cosigned))
                item.due = retryAt
                self.reschedule(item)
            }
        }
    }

    /// Records a failed round of `batch`: the back-off, and against each event a bad answer (refused after
    /// ``Configuration/badAnswerTries`` in a row).
    private func failed(_ batch: [MonitorQueue.Item], _ error: MonitorError) {
        self.events.yield(.error(error))
        guard error != .signedOut else { return }
        self.failures += 1
        let resume = ContinuousClock.now + self.backoff(self.failures)
        self.pausedUntil = max(self.pausedUntil ?? resume, resume)
        for var item in batch {
            guard let current = self.queue.item(item.id) else { continue }
            item = current
            if error.isBadAnswer {
                item.badAnswers += 1
                if item.badAnswers >= self.configuration.badAnswerTries {
                    self.settle(item.id, .refused(.badAnswers(error)))
                    continue
                }
            }
            item.state = .pending(.retrying(error))
            self.reschedule(item)
        }
    }

    /// Settles `id` and tells the app.
    func settle(_ id: String, _ state: ReceiptState) {
        self.queue.settle(id, state)
        self.events.yield(.receipt(eventID: id, state))
    }

    /// Puts `item` back in the queue with its new state, telling the app when the state changed.
    private func reschedule(_ item: MonitorQueue.Item) {
        let before = self.queue.item(item.id)?.state
        self.queue.update(item)
        if before != item.state { self.events.yield(.receipt(eventID: item.id, item.state)) }
    }

    /// The answer to `GET path`, with the session's access token when `authorized`, its body read no further than
    /// ``Configuration/maximumAnswerBytes`` while it arrives (decoded bytes: the request accepts gzip).
    /// - Throws: ``MonitorError``: `.signedOut`, `.transport`, `.answerTooLarge`.
    func ask(
        _ path: String,
        query: [URLQueryItem],
        authorized: Bool
    ) async throws(MonitorError) -> (
        Data, HTTPURLResponse
    ) {
        let connection = self.sender.connection
        let limit = self.configuration.maximumAnswerBytes
        do {
            var request = try connection.request("GET", path, query: query)
            request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
            guard authorized else { return try await connection.perform(request, limit: limit) }
            let (data, response, _) = try await self.sender.send(request, limit: limit)
            return (data, response)
        } catch let error as AuthlogClientError where error.isSignedOut {
            throw .signedOut
        } catch let error as AuthlogClientError where error.code == .answerTooLarge {
            throw .answerTooLarge(limit: limit)
        } catch {
            throw .transport
        }
    }

    /// The wait after `failures` failures in a row: ``Configuration/retryDelay`` doubled each time, at most
    /// ``Configuration/maximumBackoff``.
    func backoff(_ failures: Int) -> Duration {
        let doublings = min(max(0, failures - 1), 20)
        return min(self.configuration.retryDelay * (1 << doublings), self.configuration.maximumBackoff)
    }

    /// Pauses the rounds for a 429's `Retry-After`, or the next back-off when it gives none.
    func pause(after response: HTTPURLResponse) {
        let wait = Self.retryAfter(response, limit: self.configuration.maximumBackoff)
        self.pausedUntil = .now + (wait ?? self.backoff(self.failures + 1))
    }

    /// The answer's `Retry-After` in seconds (0 to `limit`), or nil when it has none in that form.
    static func retryAfter(_ response: HTTPURLResponse, limit: Duration) -> Duration? {
        guard let text = response.value(forHTTPHeaderField: "Retry-After"), (1...6).contains(text.utf8.count),
            text.utf8.allSatisfy({ (48...57).contains($0) }), let seconds = Int(text)
        else { return nil }
        return min(.seconds(seconds), limit)
    }
}

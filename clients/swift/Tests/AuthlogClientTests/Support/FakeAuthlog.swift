import AuthlogTransparency
import Foundation

/// authlog's sign-in, refresh, activity and log routes over a real HTTP server on 127.0.0.1
/// (``LoopbackHTTPServer``), with a log in memory whose checkpoints are signed by test keys: what the monitor
/// talks to in these tests. Knobs make it misbehave: a forked log shown instead of the true one, answers held
/// pending or below quorum, a consistency proof left out, another user's receipts given, an answer rewritten.
///
/// `@unchecked Sendable`: every stored `var` is read and written only while `lock` is held; `keys` is immutable.
final class FakeAuthlog: @unchecked Sendable {
    let keys: TestLogKeys
    private let lock = NSLock()
    private var server: LoopbackHTTPServer?

    /// The true log.
    private var log = FakeLogTree()
    /// How many leaves of the true log a signed checkpoint covers.
    private var sealedSize: Int64 = 0
    /// Whether every append is sealed at once.
    private var autoSeal = true
    /// A log shown instead of the true one to the receipts route (and to the proof route unless
    /// `proofsFromTrueLog`): a split view. All of it counts as sealed.
    private var fork: FakeLogTree?
    private var proofsFromTrueLog = false
    /// The witnesses that cosign the checkpoints shown.
    private var cosigners: [CosignatureSigner]
    /// Whether the impostor key signs the checkpoints instead of the log's.
    private var signWithImpostor = false
    /// The next answers report every event pending (not checkpointed), with 202 and `Retry-After: 1`.
    private var pendingAnswers = 0
    /// The next answers carry an uncosigned checkpoint (`witnessed: pending`, 202, `Retry-After: 1`).
    private var uncosignedAnswers = 0
    private var omitConsistency = false
    /// Whether the receipts route gives any user's receipts, not only the caller's.
    private var leakOtherUsers = false
    /// Rewrites the receipts answer's JSON object before it is sent.
    private var rewrite: (@Sendable (inout [String: Any]) -> Void)?
    /// The next receipts answer, sent as it is.
    private var rawAnswers: [HTTPAnswer] = []
    /// Ids added to the next sign-in answer's `Authlog-Event-Ids`.
    private var extraEventIDs: [String] = []
    /// The type of the event a refresh appends (a lying server's).
    private var refreshEventType = "token.refreshed"
    /// The event ids the last sign-in or refresh answer named.
    private var lastNamed: [String] = []
    /// Statuses of the next alarm posts (then 200).
    private var alarmStatuses: [Int] = []
    /// Sizes below this are in positions retention dropped: a receipts request asking `from` one is 410.
    private var droppedBelow: Int64 = 0
    /// Whether the log routes gzip their answers for a request that accepts gzip.
    private var gzipAnswers = false
    /// Whether the receipts route answers `event` in base64 whatever `event_form` asks (an older server).
    private var base64EventsOnly = false

    private var users: [String: String] = [:]
    private var sessions: [String: (user: String, session: String)] = [:]
    private var refreshTokens: [String: (user: String, session: String)] = [:]
    private var serial = 0
    private(set) var paths: [String] = []
    private(set) var receiptQueries: [[String: String]] = []
    private(set) var receiptTimes: [ContinuousClock.Instant] = []
    private(set) var alarmPosts: [Data] = []
    /// The `Accept-Encoding` of each request to a log route, with its path.
    private var logAcceptEncodings: [(path: String, value: String?)] = []
    /// How many answers went gzipped.
    private var gzipped = 0

    init() throws {
        self.keys = try TestLogKeys()
        self.cosigners = [self.keys.witnesses[0]]
        self.server = try LoopbackHTTPServer { [weak self] request in
            self?.answer(request) ?? HTTPAnswer(status: 503)
        }
    }

    deinit {
        self.server?.stop()
    }

    var baseURL: URL { self.server?.baseURL ?? URL(fileURLWithPath: "/") }

    /// Runs `body` under the lock, to set knobs.
    func configure(_ body: (FakeAuthlog) -> Void) { self.lock.withLock { body(self) } }

    func set(autoSeal: Bool) { self.configure { $0.autoSeal = autoSeal } }
    func set(cosigners: [CosignatureSigner]) { self.configure { $0.cosigners = cosigners } }
    func set(signWithImpostor: Bool) { self.configure { $0.signWithImpostor = signWithImpostor } }
    func set(pendingAnswers: Int) { self.configure { $0.pendingAnswers = pendingAnswers } }
    func set(uncosignedAnswers: Int) { self.configure { $0.uncosignedAnswers = uncosignedAnswers } }
    func set(omitConsistency: Bool) { self.configure { $0.omitConsistency = omitConsistency } }
    func set(leakOtherUsers: Bool) { self.configure { $0.leakOtherUsers = leakOtherUsers } }
    func set(extraEventIDs: [String]) { self.configure { $0.extraEventIDs = extraEventIDs } }
    func set(refreshEventType: String) { self.configure { $0.refreshEventType = refreshEventType } }
    func set(alarmStatuses: [Int]) { self.configure { $0.alarmStatuses = alarmStatuses } }
    func set(droppedBelow: Int64) { self.configure { $0.droppedBelow = droppedBelow } }
    func set(gzipAnswers: Bool) { self.configure { $0.gzipAnswers = gzipAnswers } }
    func set(base64EventsOnly: Bool) { self.configure { $0.base64EventsOnly = base64EventsOnly } }
    func set(rewrite: (@Sendable (inout [String: Any]) -> Void)?) { self.configure { $0.rewrite = rewrite } }
    func queue(rawAnswer: HTTPAnswer) { self.configure { $0.rawAnswers.append(rawAnswer) } }

    /// Shows `fork` (a log built from the true one) to the receipts route from now on; the proof route answers
    /// from it too, or from the true log when `proofsFromTrueLog`.
    func show(fork build: (inout FakeLogTree) -> Void, proofsFromTrueLog: Bool = false) {
        self.configure {
            var tree = $0.log.prefix($0.sealedSize)
            build(&tree)
            $0.fork = tree
            $0.proofsFromTrueLog = proofsFromTrueLog
        }
    }

    /// Shows the true log again.
    func showTrueLog() { self.configure { $0.fork = nil } }

    /// Seals every event appended so far.
    func seal() { self.configure { $0.sealedSize = $0.log.size } }

    /// Appends `event` to the true log (sealed at once when auto-sealing).
    @discardableResult
    func append(_ event: TestEvent) -> Int64 {
        self.lock.withLock { self.appendLocked(event) }
    }

    /// The size of the checkpoint the true log shows.
    var sealed: Int64 { self.lock.withLock { self.sealedSize } }

    /// The event ids the last sign-in or refresh answer named.
    var lastNamedEventIDs: [String] { self.lock.withLock { self.lastNamed } }

    /// How many requests went to `path`.
    func count(_ path: String) -> Int { self.lock.withLock { self.paths.filter { $0 == path }.count } }

    /// The alarm posts received.
    var alarms: [Data] { self.lock.withLock { self.alarmPosts } }

    /// When the receipts requests came.
    var receiptRequestTimes: [ContinuousClock.Instant] { self.lock.withLock { self.receiptTimes } }

    /// The `Accept-Encoding` header of each request to a log route (`/v1/log/…`), with its path.
    var acceptEncodings: [(path: String, value: String?)] { self.lock.withLock { self.logAcceptEncodings } }

    /// How many answers of the log routes went gzipped.
    var gzippedAnswers: Int { self.lock.withLock { self.gzipped } }

    /// The queries of the receipts requests received.
    var receiptRequests: [[String: String]] { self.lock.withLock { self.receiptQueries } }

    private func appendLocked(_ event: TestEvent) -> Int64 {
        let position = self.log.append(event)
        if self.autoSeal { self.sealedSize = self.log.size }
        return position
    }

    // MARK: Routes

    private func answer(_ request: HTTPRequest) -> HTTPAnswer {
        self.lock.withLock {
            self.paths.append(request.path)
            switch (request.method, request.path) {
            case ("POST", "/v1/signin/dev"): return self.signIn(request)
            case ("POST", "/v1/token/refresh"): return self.refresh(request)
            case ("GET", "/v1/me/activity"): return self.activity(request)
            case ("GET", "/v1/log/receipts"): return self.encoded(self.receipts(request), for: request)
            case ("GET", "/v1/log/proof/consistency"): return self.encoded(self.consistency(request), for: request)
            case ("POST", "/alarms"):
                self.alarmPosts.append(request.body)
                return HTTPAnswer(status: self.alarmStatuses.isEmpty ? 200 : self.alarmStatuses.removeFirst())
            default: return .json(404, ["error": "not_found"])
            }
        }
    }

    /// `answer` to a log route, gzipped when the knob is on and `request` accepts gzip (and the answer is not
    /// already coded).
    private func encoded(_ answer: HTTPAnswer, for request: HTTPRequest) -> HTTPAnswer {
        let accepted = request.headers["accept-encoding"]
        self.logAcceptEncodings.append((request.path, accepted))
        let acceptsGzip = accepted?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "gzip" }
        guard self.gzipAnswers, acceptsGzip == true, answer.headers["Content-Encoding"] == nil, answer.stream == nil
        else { return answer }
        var coded = answer
        coded.body = Data(TestGzip.compress(Array(answer.body)))
        coded.headers["Content-Encoding"] = "gzip"
        self.gzipped += 1
        return coded
    }

    private func signIn(_ request: HTTPRequest) -> HTTPAnswer {
        let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
        let subject = body?["subject"] as? String ?? "nobody"
        let user = self.users[subject] ?? UUID().uuidString.lowercased()
        self.users[subject] = user
        let session = UUID().uuidString.lowercased()
        let events = [
            TestEvent(type: "signin.succeeded", userID: user, sessionID: session),
            TestEvent(type: "token.issued", userID: user, sessionID: session),
        ]
        for event in events { _ = self.appendLocked(event) }
        let named = events.map(\.id) + self.extraEventIDs
        self.extraEventIDs = []
        return self.tokens(user: user, session: session, eventIDs: named)
    }

    private func refresh(_ request: HTTPRequest) -> HTTPAnswer {
        let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
        guard let token = body?["refresh_token"] as? String, let owner = self.refreshTokens.removeValue(forKey: token)
        else { return .json(400, ["error": "invalid_grant"]) }
        let event = TestEvent(type: self.refreshEventType, userID: owner.user, sessionID: owner.session)
        _ = self.appendLocked(event)
        return self.tokens(user: owner.user, session: owner.session, eventIDs: [event.id])
    }

    private func tokens(user: String, session: String, eventIDs: [String]) -> HTTPAnswer {
        self.lastNamed = eventIDs
        self.serial += 1
        let access = "access-\(self.serial)"
        let refresh = "refresh-\(self.serial)"
        self.sessions[access] = (user, session)
        self.refreshTokens[refresh] = (user, session)
        let format = ISO8601DateFormatter()
        let object: [String: Any] = [
            "user_id": user, "session_id": session, "is_new_user": false,
            "access_token": access, "access_token_expires_at": format.string(from: Date().addingTimeInterval(900)),
            "refresh_token": refresh,
            "refresh_token_expires_at": format.string(from: Date().addingTimeInterval(86_400)),
            "event_ids": eventIDs,
        ]
        return .json(200, object, headers: ["Authlog-Event-Ids": eventIDs.joined(separator: ",")])
    }

    private func caller(_ request: HTTPRequest) -> (user: String, session: String)? {
        guard let header = request.headers["authorization"], header.hasPrefix("Bearer ") else { return nil }
        return self.sessions[String(header.dropFirst(7))]
    }

    private func activity(_ request: HTTPRequest) -> HTTPAnswer {
        guard let caller = self.caller(request) else { return .json(401, ["error": "invalid_token"]) }
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let entries: [[String: Any]] = self.log.events.enumerated().reversed().compactMap { index, event in
            guard event.userID == caller.user else { return nil }
            let position = Int64(index + 1)
            return [
                "event_id": event.id, "type": event.type, "time": format.string(from: event.occurredAt),
                "outcome": "success", "position": position <= self.sealedSize ? position as Any : NSNull(),
            ]
        }
        return .json(200, ["activity": entries, "next": NSNull()])
    }

    private func receipts(_ request: HTTPRequest) -> HTTPAnswer {
        self.receiptQueries.append(request.query)
        self.receiptTimes.append(.now)
        guard let caller = self.caller(request) else { return .json(401, ["error": "invalid_token"]) }
        if !self.rawAnswers.isEmpty { return self.rawAnswers.removeFirst() }
        if let from = request.query["from"].flatMap({ Int64($0) }), from < self.droppedBelow {
            return .json(410, ["error": "dropped"])
        }
        let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
        let tree = self.fork ?? self.log
        let size = self.fork?.size ?? self.sealedSize
        let allPending = self.pendingAnswers > 0
        if allPending { self.pendingAnswers -= 1 }
        var receipts: [(index: Int64, id: String, bytes: [UInt8])] = []
        var pending: [String] = []
        var notFound: [String] = []
        for id in ids {
            guard let position = tree.position(of: id),
                self.leakOtherUsers || tree.events[Int(position - 1)].userID == caller.user
            else {
                // An event of the true log that the view shown does not hold yet is pending there.
                let own = self.log.position(of: id).map { self.log.events[Int($0 - 1)].userID == caller.user }
                if own == true { pending.append(id) } else { notFound.append(id) }
                continue
            }
            if allPending || position > size {
                pending.append(id)
            } else {
                receipts.append((position - 1, id, tree.events[Int(position - 1)].bytes))
            }
        }
        receipts.sort { $0.index < $1.index }
        let uncosigned = self.uncosignedAnswers > 0
        if uncosigned { self.uncosignedAnswers -= 1 }
        let note =
            (try? self.keys.note(
                size: size,
                root: tree.root(size: size),
                signer: self.signWithImpostor ? self.keys.impostor : nil,
                cosigners: uncosigned ? [] : self.cosigners
            )) ?? ""
        let asText = request.query["event_form"] == "text" && !self.base64EventsOnly
        var object: [String: Any] = [
            "checkpoint": note,
            "witnessed": uncosigned ? "pending" : "yes",
            "receipts": receipts.map {
                asText
                    ? ["event_id": $0.id, "index": $0.index, "event_text": EventText.text(of: $0.bytes)]
                    : ["event_id": $0.id, "index": $0.index, "event": Data($0.bytes).base64EncodedString()]
            },
            "proof": Self.base64(tree.multiProof(indices: receipts.map(\.index), size: size)),
            "pending": pending.map { ["event_id": $0, "reason": "not_checkpointed"] },
            "not_found": notFound,
        ]
        if let from = request.query["from"].flatMap({ Int64($0) }), from >= 1, from < size, from <= tree.size,
            !self.omitConsistency
        {
            object["consistency"] = Self.base64(tree.consistency(from: from, to: size))
        }
        self.rewrite?(&object)
        let waiting = uncosigned || !pending.isEmpty
        return .json(waiting ? 202 : 200, object, headers: waiting ? ["Retry-After": "1"] : [:])
    }

    private func consistency(_ request: HTTPRequest) -> HTTPAnswer {
        guard let from = request.query["from"].flatMap({ Int64($0) }),
            let to = request.query["to"].flatMap({ Int64($0) }),
            from >= 1, from <= to
        else { return .json(400, ["error": "invalid_request"]) }
        let tree = self.proofsFromTrueLog ? self.log : (self.fork ?? self.log)
        guard to <= tree.size else { return .json(400, ["error": "out_of_range"]) }
        return .json(
            200,
            [
                "from": from, "to": to, "from_root_hash": Data(tree.root(size: from)).base64EncodedString(),
                "to_root_hash": Data(tree.root(size: to)).base64EncodedString(),
                "proof": tree.consistency(from: from, to: to).map { Data($0).base64EncodedString() },
            ]
        )
    }

    private static func base64(_ hashes: [[UInt8]]) -> String {
        Data(hashes.flatMap { $0 }).base64EncodedString()
    }
}

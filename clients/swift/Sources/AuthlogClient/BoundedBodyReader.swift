import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of one data task whose body is read into memory up to a bound, counted as the bytes arrive (after
/// URLSession removed any `Content-Encoding`, so a compressed body counts at its decoded size): past the bound the
/// task is cancelled and the read fails with ``AuthlogClientError/Code/answerTooLarge``; the bytes beyond the bound
/// are never kept. A declared `Content-Length` over the bound (of a body without a content coding) cancels the task
/// before any of the body is read; a `Content-Length` that lies lower bounds nothing, the count does.
///
/// `@unchecked Sendable`: every mutable property is read and written only while `lock` is held; `limit` is
/// immutable. URLSession calls the delegate on its queue, the waiting caller resumes from there.
final class BoundedBodyReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let limit: Int
    private let lock = NSLock()
    private var body = Data()
    private var response: HTTPURLResponse?
    private var overLimit = false
    private typealias Outcome = Result<(Data, HTTPURLResponse), any Error>
    private typealias Waiting = CheckedContinuation<(Data, HTTPURLResponse), any Error>
    private var continuation: Waiting?
    /// The outcome once the task ended (the caller may begin to wait after that).
    private var outcome: Outcome?

    /// A reader that keeps at most `limit` bytes of body.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Waits for the task this reader is the delegate of to end.
    /// - Returns: the body (at most `limit` bytes) and the response.
    /// - Throws: ``AuthlogClientError``: `.answerTooLarge` past the bound, `.invalidResponse` for an answer that is
    ///   not HTTP; or the task's error (no answer, cancelled).
    func answer() async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            let ended = self.lock.withLock {
                if self.outcome == nil { self.continuation = continuation }
                return self.outcome
            }
            if let ended { continuation.resume(with: ended) }
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        // A coded body's length is that of its coded bytes: only the decoded count decides then.
        let coding = http?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased() ?? "identity"
        let declaredTooLarge = coding == "identity" && response.expectedContentLength > Int64(self.limit)
        self.lock.withLock {
            self.response = http
            if declaredTooLarge { self.overLimit = true }
        }
        completionHandler(declaredTooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = self.lock.withLock { () -> Bool in
            guard !self.overLimit else { return true }
            guard data.count <= self.limit - self.body.count else {
                self.overLimit = true
                self.body = Data()
                return true
            }
            self.body.append(data)
            return false
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (waiting, outcome) = self.lock.withLock { () -> (Waiting?, Outcome) in
            let outcome: Outcome
            if self.overLimit {
                let detail = "The answer's body is over \(self.limit) bytes."
                outcome = .failure(AuthlogClientError(.answerTooLarge, detail: detail))
            } else if let error {
                outcome = .failure(error)
            } else if let response = self.response ?? task.response as? HTTPURLResponse {
                outcome = .success((self.body, response))
            } else {
                outcome = .failure(AuthlogClientError(.invalidResponse))
            }
            self.body = Data()
            self.outcome = outcome
            defer { self.continuation = nil }
            return (self.continuation, outcome)
        }
        waiting?.resume(with: outcome)
    }
}

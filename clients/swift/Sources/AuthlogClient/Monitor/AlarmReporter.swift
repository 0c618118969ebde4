import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts a split-view alarm to the URL the app configured: the alarm's JSON (``SplitViewAlarm``'s members and
/// `evidence`), one try and a bounded number of retries while no answer comes or the receiver answers 5xx or
/// 429; a 4xx other than 429 ends the tries. The request carries no token.
struct AlarmReporter: Sendable {
    let url: URL
    let transport: any HTTPTransport
    let retries: Int
    let retryDelay: Duration

    /// How long one post waits for its answer.
    static let timeout: TimeInterval = 10

    /// Posts `alarm`; whether a receiver accepted it (2xx).
    func report(_ alarm: SplitViewAlarm) async -> Bool {
        guard let body = Self.body(of: alarm) else { return false }
        var request = URLRequest(url: self.url)
        request.httpMethod = "POST"
        request.timeoutInterval = Self.timeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        for attempt in 0...self.retries {
            if attempt > 0 {
                guard (try? await Task.sleep(for: self.retryDelay * attempt)) != nil else { return false }
            }
            guard let (_, response) = try? await self.transport.data(for: request) else { continue }
            if (200..<300).contains(response.statusCode) { return true }
            guard response.statusCode >= 500 || response.statusCode == 429 else { return false }
        }
        return false
    }

    /// The JSON body: the alarm's members and its evidence text.
    static func body(of alarm: SplitViewAlarm) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try? encoder.encode(Report(alarm: alarm))
    }

    /// The alarm's members and `evidence`, in one object.
    private struct Report: Encodable {
        let alarm: SplitViewAlarm

        enum CodingKeys: String, CodingKey {
            case evidence
        }

        func encode(to encoder: any Encoder) throws {
            try self.alarm.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.alarm.evidence, forKey: .evidence)
        }
    }
}

import AuthlogClient
import AuthlogCore
import AuthlogTesting
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What AuthlogClient adds to an authorized request: the same bearer route (`GET /v1/log/receipt/{event_id}`
/// of the user's own sign-in event) sent through ``AuthlogClient/send(_:)`` and as a bare URLSession request
/// carrying the same access token, in alternating blocks over one URLSession, one request at a time.
enum ClientOverheadBench {
    /// The mean time per request of each way, in microseconds.
    struct Result {
        let clientMicroseconds: Double
        let bareMicroseconds: Double
        let requests: Int
        var ratio: Double { self.clientMicroseconds / self.bareMicroseconds }
    }

    /// Signs in with the dev provider at `baseURL`, then sends `requests` requests each way in blocks of
    /// `block`, after `warmup` of each; the client's monitor is on when `monitor` is given.
    static func measure(
        baseURL: URL,
        requests: Int,
        block: Int,
        warmup: Int,
        monitor: LogMonitor.Configuration? = nil
    ) async throws -> Result {
        let session = URLSession(configuration: .ephemeral)
        let client = AuthlogClient(baseURL: baseURL, session: session, monitor: monitor)
        let signedIn = try await client.signIn(with: .dev(subject: "bench-\(UUID().uuidString.prefix(8))"))
        guard let eventID = signedIn.eventIDs.first else { throw BenchFailure("the sign-in named no event") }
        let request = URLRequest(url: baseURL.appendingPathComponent("v1/log/receipt/\(eventID)"))
        var authorized = request
        authorized.setValue("Bearer \(signedIn.tokens.accessToken)", forHTTPHeaderField: "Authorization")
        let bare = authorized

        let viaClient: @Sendable () async throws -> Int = { try await client.send(request).1.statusCode }
        let viaSession: @Sendable () async throws -> Int = {
            let (_, response) = try await session.data(for: bare)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        let expected = try await viaSession()
        guard expected != 401, try await viaClient() == expected else {
            throw BenchFailure("the two ways answer differently")
        }
        _ = try await Self.time(warmup, viaSession, expecting: expected)
        _ = try await Self.time(warmup, viaClient, expecting: expected)
        var clientTime = Duration.zero
        var bareTime = Duration.zero
        var done = 0
        while done < requests {
            let count = min(block, requests - done)
            bareTime += try await Self.time(count, viaSession, expecting: expected)
            clientTime += try await Self.time(count, viaClient, expecting: expected)
            done += count
        }
        session.invalidateAndCancel()
        return Result(
            clientMicroseconds: Self.microseconds(clientTime) / Double(requests),
            bareMicroseconds: Self.microseconds(bareTime) / Double(requests),
            requests: requests
        )
    }

    /// The time `count` sequential calls of `send` take; each must answer `expected`.
    private static func time(
        _ count: Int,
        _ send: @Sendable () async throws -> Int,
        expecting expected: Int
    ) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count {
            guard try await send() == expected else { throw BenchFailure("an answer changed during the run") }
        }
        return clock.now - start
    }

    private static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}

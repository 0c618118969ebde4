import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Logging
import Testing

extension ServerHarness {
    /// Runs a push sink of `format` (`export` or `ocsf`: the server's own ``SinkDeliverer``, POSTing to a
    /// ``SinkReceiver`` on 127.0.0.1) until it has delivered the whole sealed log; returns the bodies it
    /// received, in order.
    func deliverToSink(format: String) async throws -> [UInt8] {
        let secret = "a-harness-test-sink-secret-of-forty-chars"
        let receiver = try await SinkReceiver.start(secret: secret)
        defer { Task { await receiver.stop() } }
        let entry: JSONValue = .members([
            "name": .string("siem"), "type": .string("http"), "url": .string(receiver.url),
            "secret": .string(secret), "format": .string(format),
        ])
        var configuration = ServerConfiguration()
        configuration.sinks = [
            try JSONDecoder().decode(ServerConfiguration.SinkEntry.self, from: Data(entry.canonicalText.utf8))
        ]
        let sink = try #require(try SinkSettings(configuration: configuration).sinks.first)
        let deliverer = SinkDeliverer(
            sink: sink,
            cursors: SinkCursors(pool: self.components.store.pool),
            pool: self.components.store.pool,
            store: self.components.store,
            metrics: SinkMetrics(),
            logger: Logger(label: "sink-tests")
        )
        try await self.components.store.sealPending()
        let head = try await self.components.store.pool.withConnection { try await EventReader().head(on: $0).size }
        for _ in 0..<100 where (receiver.positions.max() ?? 0) < head {
            await deliverer.pass()
        }
        #expect(receiver.positions == Array(1...head), "every event once, in order")
        return receiver.batches.flatMap(\.body)
    }
}

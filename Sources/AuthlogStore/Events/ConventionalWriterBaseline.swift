public import AuthlogCore
public import AuthlogPostgres

/// The (a+) baseline of `authlog-bench store`: what a conventional event store does. One transaction per
/// command with the same event rows, stream-version checks and projection statements as authlog's writers,
/// but no grouping of commands, no queue, no sealer and no tree. The events it writes are never sealed, so
/// it is for measuring only, on a database of its own.
public enum ConventionalWriterBaseline {
    /// Validates and writes `command` in a transaction of its own on `connection`.
    /// - Throws: as ``PostgresEventStore/append(_:)`` does.
    @discardableResult
    public static func append(_ command: AppendCommand, on connection: Connection) async throws -> AppendResult {
        do {
            let prepared = try PostgresEventStore.prepare(command)
            switch await self.write(prepared, on: connection) {
            case .written(let results):
                guard let result = results.first else { throw StoreError(.server, "the writer returned no result") }
                return try result.get()
            case .notStarted(let error):
                throw error
            }
        } catch let error as StoreError {
            throw error.asAppendFailure
        }
    }

    private static func write(_ command: PreparedCommand, on connection: isolated Connection) -> BatchWriter.Outcome {
        BatchWriter.write([command], queueForSealing: false, on: connection)
    }
}

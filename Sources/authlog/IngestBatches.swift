import AuthlogCore
import Foundation

/// The second pass of `authlog append`: the checked spool read back a batch of events at a time, each event
/// with its line number.
struct IngestBatches: Sendable {
    /// Held so that its descriptor stays open while the batches read it.
    private let spool: IngestSpool
    private var reader: JSONLineReader

    /// Reads `spool` from its first byte.
    /// - Throws: ``JSONLineReader/Failure`` when the spool cannot be rewound.
    init(spool: IngestSpool) throws(JSONLineReader.Failure) {
        try spool.rewind()
        self.spool = spool
        self.reader = JSONLineReader(descriptor: spool.descriptor, limit: IngestCheck.lineLimit)
    }

    /// The next `size` events (fewer at the end; none when the spool is read).
    /// - Throws: ``JSONLineReader/Failure`` when the spool cannot be read or a line no longer parses (the
    ///   file was checked a moment before: only a broken disk or a changed file gets here).
    mutating func next(size: Int) throws(JSONLineReader.Failure) -> [(line: Int, event: EventEnvelope)] {
        var batch: [(line: Int, event: EventEnvelope)] = []
        while batch.count < size, let line = try self.reader.next() {
            switch IngestCheck.parse(line) {
            case .blank: continue
            case .event(let number, let event): batch.append((number, event))
            case .bad(let error):
                throw JSONLineReader.Failure(description: "\(error) (the spool changed after it was checked)")
            }
        }
        return batch
    }
}

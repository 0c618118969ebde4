public import AuthlogCore
import Foundation

/// What `POST /v1/events` accepts from another system: one event object or an array of at most
/// ``maximumEvents``, each in the ingest format and validated as `authlog append` validates them, plus two
/// rules of the HTTP route: `event_id` is required (a retried call must find the same events, so that it
/// stores nothing twice) and `data.source` names the sending system. authlog adds `data.ingested_by`, the
/// API key that sent it (`key:NAME`), which also means the event is recorded but never acted on
/// (``ProjectionReducer/changes(for:decoded:)``), and refuses `audit.*` types, which only authlog writes.
public enum EventIngest {
    /// The most events one call may carry.
    public static let maximumEvents = 500

    /// An event of the body that cannot be stored, by its index in the body (0 for a single object).
    public struct Refusal: Error, Sendable, Equatable {
        /// The index of the first bad event.
        public var index: Int
        /// What is wrong with it.
        public var problem: String
    }

    /// The envelopes of `document`, in order, each carrying `ingested_by: actor` in its data.
    /// - Throws: ``Refusal`` for the first bad event.
    public static func envelopes(from document: JSONValue, actor: String) throws(Refusal) -> [EventEnvelope] {
        let items: [JSONValue]
        switch document {
        case .array(let array): items = array
        default: items = [document]
        }
        guard (1...Self.maximumEvents).contains(items.count) else {
            throw Refusal(index: 0, problem: "send 1 to \(Self.maximumEvents) events per call, not \(items.count)")
        }
        var envelopes: [EventEnvelope] = []
        for (index, item) in items.enumerated() {
            var envelope: EventEnvelope
            do {
                envelope = try EventEnvelope(ingesting: item)
            } catch {
                throw Refusal(index: index, problem: error.description)
            }
            guard !envelope.type.isWrittenByAuthlogOnly else {
                throw Refusal(index: index, problem: "type \(envelope.type.rawValue) is written by authlog only")
            }
            guard let id = item["event_id"], !id.isNull else {
                throw Refusal(
                    index: index,
                    problem: "event_id is required, so that a retried call stores nothing twice"
                )
            }
            guard case .object(var members) = envelope.data,
                let source = envelope.data["source"]?.stringValue,
                source == EnvelopeText.normalized(source, limit: 64), !source.isEmpty
            else {
                throw Refusal(index: index, problem: "data.source must name the sending system (1 to 64 characters)")
            }
            guard envelope.data["ingested_by"] == nil else {
                throw Refusal(index: index, problem: "data.ingested_by is set by authlog")
            }
            members.append((name: "ingested_by", value: .string(actor)))
            envelope.data = .object(members)
            envelopes.append(envelope)
        }
        return envelopes
    }
}

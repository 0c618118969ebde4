import Foundation

/// Reads a JSON answer of the log's routes, bounded, turning every way it can be wrong into a
/// ``MonitorError``.
enum AnswerJSON {
    /// `type` decoded from `data`.
    /// - Throws: ``MonitorError``: `.answerTooLarge` over `limit` bytes, `.missingField` naming the member,
    ///   `.malformedAnswer` for JSON of another shape or no JSON at all.
    static func decode<Answer: Decodable>(
        _ type: Answer.Type,
        from data: Data,
        limit: Int
    ) throws(MonitorError)
        -> Answer
    {
        guard data.count <= limit else { throw .answerTooLarge(limit: limit) }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw .malformedAnswer("not JSON")
        }
    }

    /// The error for a body JSONDecoder refused.
    private static func describe(_ error: DecodingError) -> MonitorError {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))
        case .valueNotFound(_, let context), .typeMismatch(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .malformedAnswer(path.isEmpty ? "not a JSON object" : "`\(path)` is null or of the wrong type")
        case .dataCorrupted:
            return .malformedAnswer("not JSON")
        @unknown default:
            return .malformedAnswer("not JSON of the expected shape")
        }
    }
}

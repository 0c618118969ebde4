import AuthlogCore
import Foundation

extension ServiceDependencies {
    /// An event of this request; a payload that cannot be encoded is our own failure (500).
    func event<Payload: EventPayload>(
        _ metadata: RequestMetadata,
        stream: StreamName,
        outcome: Outcome = .success,
        reason: String? = nil,
        provider: String? = nil,
        userID: UUID? = nil,
        sessionID: UUID? = nil,
        at now: Timestamp,
        data: Payload
    ) throws(ServiceError) -> EventEnvelope {
        do {
            return try metadata.envelope(
                stream: stream,
                outcome: outcome,
                reason: reason,
                provider: provider,
                userID: userID,
                sessionID: sessionID,
                at: now,
                data: data
            )
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "The event could not be made.")
        }
    }
}

import AuthlogCore
import Foundation

extension StreamName {
    /// `session-<id>`.
    static func session(_ sessionID: UUID) -> StreamName { StreamName(category: "session", id: sessionID.lowercased) }
    /// `user-<id>`.
    static func user(_ userID: UUID) -> StreamName { StreamName(category: "user", id: userID.lowercased) }
}

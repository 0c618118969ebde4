/// Why an event was refused before it reached the database.
public struct EventValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The envelope field at fault (`stream`, `data`, `user_id`, …).
    public var field: String
    /// What is wrong with it, in a few words.
    public var problem: String

    /// Creates the error.
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(self.field) \(self.problem)" }
}

extension EventEnvelope {
    /// Checks the envelope against the catalogue: stream category, required columns, fixed outcome,
    /// entity ids that match the stream, a `data` object of the type's shape, and no U+0000 in `data`
    /// (PostgreSQL cannot hold it). The free-text columns need no check: the envelope keeps them in their
    /// ``EnvelopeText`` normal form.
    /// - Throws: ``EventValidationError`` naming the first problem.
    public func validate() throws(EventValidationError) {
        _ = try self.validatedPayload()
    }

    /// Validates as ``validate()`` does and returns the decoded payload, so that a caller that needs it
    /// (the append path's reducer) does not decode `data` a second time.
    /// - Throws: ``EventValidationError`` naming the first problem.
    public func validatedPayload() throws(EventValidationError) -> any EventPayload {
        guard self.type.streamCategories.contains(self.stream.category) else {
            let allowed = self.type.streamCategories.sorted().joined(separator: " or ")
            throw EventValidationError(
                field: "stream",
                problem: "must be in category \(allowed) for \(self.type.rawValue)"
            )
        }
        for field in self.type.requiredFields.sorted(by: { $0.rawValue < $1.rawValue }) where !self.has(field) {
            throw EventValidationError(field: field.rawValue, problem: "is required for \(self.type.rawValue)")
        }
        if let fixed = self.type.fixedOutcome, fixed != self.outcome {
            throw EventValidationError(field: "outcome", problem: "must be \(fixed.rawValue) for \(self.type.rawValue)")
        }
        if self.outcome == .failure && self.reason == nil {
            throw EventValidationError(field: "reason", problem: "is required when outcome is failure")
        }
        try self.validateStreamEntity()
        if let version = self.streamVersion, version < 1 {
            throw EventValidationError(field: "stream_version", problem: "must be 1 or more")
        }
        guard self.data.isObject else { throw EventValidationError(field: "data", problem: "must be a JSON object") }
        guard !self.data.containsNUL else { throw EventValidationError(field: "data", problem: "contains U+0000") }
        let payload: any EventPayload
        do {
            payload = try self.data.decode(self.type.payloadType)
        } catch {
            throw EventValidationError(
                field: "data",
                problem: "does not fit \(self.type.rawValue): \(Self.describe(error))"
            )
        }
        try payload.checkContents()
        return payload
    }

    private func has(_ field: EnvelopeField) -> Bool {
        switch field {
        case .userID: return self.userID != nil
        case .sessionID: return self.sessionID != nil
        case .provider: return self.provider != nil
        case .reason: return self.reason != nil
        }
    }

    private func validateStreamEntity() throws(EventValidationError) {
        switch self.stream.category {
        case "session":
            guard let sessionID = self.sessionID, self.stream.id == sessionID.lowercased else {
                throw EventValidationError(field: "stream", problem: "must be session-<session_id>")
            }
        case "user":
            guard let userID = self.userID, self.stream.id == userID.lowercased else {
                throw EventValidationError(field: "stream", problem: "must be user-<user_id>")
            }
        case "signin":
            // A refresh token nobody recognises has no provider yet: it goes to signin-unknown.
            let isUnknownRefresh = self.type == .tokenRefreshFailed && self.stream.id == "unknown"
            guard isUnknownRefresh || (self.provider != nil && self.stream.id == self.provider) else {
                throw EventValidationError(field: "stream", problem: "must be signin-<provider>")
            }
        case "provider":
            guard let provider = self.provider, self.stream.id == provider else {
                throw EventValidationError(field: "stream", problem: "must be provider-<provider>")
            }
        case "identity":
            // One stream per identity, so that its locks and unlocks are ordered by the stream's versions.
            guard let provider = self.provider, let subjectHash = self.data["subject_hash"]?.stringValue,
                self.stream.id == IdentityLockout.streamName(provider: provider, subjectHash: subjectHash).id
            else {
                throw EventValidationError(field: "stream", problem: "must be identity-<provider>:<subject_hash>")
            }
        default:
            break
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \(snakeCase(fromCamelCase: key.stringValue))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map { snakeCase(fromCamelCase: $0.stringValue) }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "bad \(path)"
        default: return "invalid"
        }
    }
}

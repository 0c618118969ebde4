import AuthlogCore
import Foundation
import Testing

/// `EventType.owaspName(outcome:reason:)` gives only names OWASP's Logging Vocabulary Cheat Sheet defines
/// (checked in under `Fixtures/owasp`), picks them by outcome and reason, and docs/events.md's catalogue
/// says what the code says.
struct OWASPVocabularyTests {
    /// The event names the sheet defines: the headings of its entries, such as
    /// `### authn_login_fail[:userid]` or `### session_expired:[userid,reason]`.
    private static func sheetNames() throws -> Set<String> {
        let sheet = try RepositoryFiles.fixture("owasp/Logging_Vocabulary_Cheat_Sheet.md")
        var names: Set<String> = []
        for line in sheet.split(separator: "\n") where line.hasPrefix("### ") {
            let name = line.dropFirst(4).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.insert(String(name)) }
        }
        return names
    }

    @Test func everyNameIsOneTheSheetDefines() throws {
        let defined = try Self.sheetNames()
        #expect(defined.contains("authn_login_success") && defined.contains("excess_rate_limit_exceeded"))
        #expect(defined.count > 40, "the sheet's entries were found: \(defined.count)")
        #expect(!EventType.owaspNames.isEmpty)
        for name in EventType.owaspNames {
            #expect(defined.contains(name), "\(name) is not in the Logging Vocabulary Cheat Sheet")
            #expect(name.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "_") }, "\(name) needs no escaping")
        }
    }

    @Test func theNamesAuditorsLookFor() {
        func name(_ type: EventType, _ outcome: Outcome, _ reason: String? = nil) -> String? {
            type.owaspName(outcome: outcome, reason: reason)
        }
        #expect(name(.signinSucceeded, .success) == "authn_login_success")
        #expect(name(.signinFailed, .failure, "invalid_signature") == "authn_login_fail")
        #expect(name(.tokenIssued, .success) == "authn_token_created")
        #expect(name(.tokenRefreshed, .success) == "session_renewed")
        #expect(name(.tokenReuseDetected, .failure, "reuse") == "authn_token_reuse")
        #expect(name(.tokenRevoked, .success) == "authn_token_revoked")
        #expect(name(.sessionExpired, .success, "idle") == "session_expired")
        #expect(name(.sessionRevoked, .success, "admin") == "session_expired")
        #expect(name(.sessionLoggedOut, .success) == "session_logout")
        #expect(name(.userRegistered, .success) == "user_created")
        #expect(name(.accountDeleted, .success) == "user_deleted")
        #expect(name(.identityLocked, .failure, "too_many_failures") == "authn_login_lock")
        #expect(name(.rateLimitExceeded, .failure, "rate_limited") == "excess_rate_limit_exceeded")
        #expect(name(.auditRetentionApplied, .success) == "sensitive_delete")
    }

    @Test func theNameFollowsTheOutcomeAndTheReason() {
        func name(_ type: EventType, _ outcome: Outcome, _ reason: String? = nil) -> String? {
            type.owaspName(outcome: outcome, reason: reason)
        }
        // A refresh: which token was presented decides.
        #expect(name(.tokenRefreshFailed, .failure, "expired") == "session_use_after_expire")
        #expect(name(.tokenRefreshFailed, .failure, "session_expired") == "session_use_after_expire")
        #expect(name(.tokenRefreshFailed, .failure, "revoked") == "authn_token_reuse")
        #expect(name(.tokenRefreshFailed, .failure, "malformed_request") == "input_validation_fail")
        #expect(name(.tokenRefreshFailed, .failure, "unknown_token") == nil)
        #expect(name(.tokenRefreshFailed, .failure) == nil)
        // Reads of the log: refused ones are authorisation failures, unreadable ones validation failures.
        #expect(name(.auditAccessed, .success) == "sensitive_read")
        #expect(name(.auditAccessed, .failure, "missing_api_key") == "authz_fail")
        #expect(name(.auditAccessed, .failure, "insufficient_scope") == "authz_fail")
        #expect(name(.auditAccessed, .failure, "invalid_request") == "input_validation_fail")
        #expect(name(.accountActionRefused, .failure, "identity_mismatch") == "authz_fail")
        #expect(name(.accountActionRefused, .failure, "request_too_large") == "input_validation_fail")
        // A change that failed did not happen: no name.
        #expect(name(.identityUnlinked, .success) == "user_updated")
        #expect(name(.identityUnlinked, .failure, "other") == nil)
        #expect(name(.accountDeleted, .failure, "other") == nil)
        #expect(name(.providerRevocationAttempted, .success) == "authn_token_revoked")
        #expect(name(.providerRevocationAttempted, .failure, "provider_revocation_failed") == nil)
        #expect(name(.providerNotificationReceived, .failure, "invalid_signature") == "input_validation_fail")
        #expect(name(.providerNotificationReceived, .success, "duplicate") == nil)
        #expect(name(.requestRefused, .failure, "per_address_cap") == "excess_rate_limit_exceeded")
        #expect(name(.requestRefused, .failure, "malformed") == "input_validation_fail")
        // No entry of the sheet fits these.
        for type in [EventType.tokenRefreshReplayed, .auditCheckpointSigned, .identityUnlocked] {
            #expect(name(type, .success) == nil && name(type, .failure, "x") == nil, "\(type.rawValue)")
        }
    }

    @Test func theNameIsNotAnIngestMember() throws {
        // The export derives `owasp`; a sender cannot set it (docs/events.md, "Export format").
        let line = """
            {"type":"signin.failed","owasp":"authn_login_success","stream":"signin-apple",\
            "occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{"reason":"x"}}
            """
        #expect(throws: EventValidationError.self) { try EventEnvelope(ingesting: JSONParser().parse(line)) }
        do {
            _ = try EventEnvelope(ingesting: JSONParser().parse(line))
        } catch {
            #expect("\(error)" == "owasp is not an envelope field")
        }
    }

    /// The rules of one type as docs/events.md's "OWASP Logging Vocabulary" table writes them: `when` is
    /// `always`, `never`, ``outcome `x` `` or ``reason `a`, `b` ``.
    private static func rule(when: String, name: String) throws -> OWASPVocabularyRule? {
        let spans = MarkdownTables.codeSpans(in: name)
        let vocabularyName: String?
        if name == "none" {
            vocabularyName = nil
        } else {
            vocabularyName = try #require(spans.first, "a name or `none`: \(name)")
        }
        switch when {
        case "always": return OWASPVocabularyRule(name: vocabularyName)
        case "never": return nil
        default:
            let values = MarkdownTables.codeSpans(in: when)
            if when.hasPrefix("outcome ") {
                let outcome = try #require(values.first.flatMap(Outcome.init(rawValue:)), "\(when)")
                return OWASPVocabularyRule(outcome: outcome, name: vocabularyName)
            }
            try #require(when.hasPrefix("reason ") && !values.isEmpty, "a condition the test reads: \(when)")
            return OWASPVocabularyRule(reasons: Set(values), name: vocabularyName)
        }
    }

    @Test func theDocumentsCatalogueSaysWhatTheCodeSays() throws {
        let document = try RepositoryFiles.document("events.md")
        let rows = MarkdownTables.firstTable(after: "## OWASP Logging Vocabulary", in: document)
        var documented: [EventType: [OWASPVocabularyRule]] = [:]
        var current: EventType?
        for row in rows {
            try #require(row.count == 3, "a row of three cells: \(row)")
            if !row[0].isEmpty {
                let name = try #require(MarkdownTables.codeSpans(in: row[0]).first, "\(row)")
                let type = try #require(EventType(rawValue: name), "\(name) is an event type")
                #expect(documented[type] == nil, "\(name) has one group of rows")
                documented[type] = []
                current = type
            }
            let type = try #require(current, "a row without a type follows one with")
            if let rule = try Self.rule(when: row[1], name: row[2]) { documented[type, default: []].append(rule) }
        }
        for type in EventType.allCases {
            #expect(documented[type] == type.owaspRules, "docs/events.md's OWASP rows of \(type.rawValue)")
        }
    }
}

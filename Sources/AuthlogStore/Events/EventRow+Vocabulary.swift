import AuthlogCore

extension EventRow {
    /// A SQL expression giving an event's OWASP Logging Vocabulary name (``EventType/owaspName(outcome:reason:)``),
    /// or NULL when it has none, from the text expressions of its `type`, `outcome` and `reason`.
    ///
    /// Built from ``EventType/owaspRules`` so that the export and the Swift function never disagree: one
    /// `CASE` over the type, and within it the type's rules in order (a type named whatever its outcome and
    /// reason gets its name directly). Every literal is one of authlog's own type names, outcomes, reasons and
    /// vocabulary names, quoted as SQL text; the names are lowercase letters and `_` only
    /// (`OWASPVocabularyTests`), so they need no escaping as JSON strings either.
    static func owaspNameExpression(type: String, outcome: String, reason: String) -> String {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        var branches: [String] = []
        for eventType in EventType.allCases {
            let rules = eventType.owaspRules
            guard rules.contains(where: { $0.name != nil }) else { continue }
            if rules.count == 1, rules[0].outcome == nil, rules[0].reasons == nil, let name = rules[0].name {
                branches.append("WHEN \(literal(eventType.rawValue)) THEN \(literal(name))")
                continue
            }
            let conditions = rules.map { rule -> String in
                var tests: [String] = []
                if let expected = rule.outcome { tests.append("\(outcome) = \(literal(expected.rawValue))") }
                if let reasons = rule.reasons {
                    tests.append("\(reason) IN (\(reasons.sorted().map(literal).joined(separator: ", ")))")
                }
                return "WHEN \(tests.isEmpty ? "TRUE" : tests.joined(separator: " AND ")) THEN "
                    + (rule.name.map(literal) ?? "NULL")
            }
            branches.append(
                "WHEN \(literal(eventType.rawValue)) THEN CASE \(conditions.joined(separator: " ")) END"
            )
        }
        return "CASE \(type) \(branches.joined(separator: " ")) END"
    }
}

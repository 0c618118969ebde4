import Testing

@testable import AuthlogPostgres

/// ``PreparedStatements``: which statements a connection prepares, and when it prepares them afresh.
struct PreparedStatementsTests {
    @Test func aTextIsPreparedTheSecondTimeItIsSeenAndExecutedAfterwards() {
        var statements = PreparedStatements()
        guard case .unnamed = statements.plan(for: "SELECT 1") else {
            Issue.record("the first sight should not prepare")
            return
        }
        guard case .prepareThenExecute(let name) = statements.plan(for: "SELECT 1") else {
            Issue.record("the second sight should prepare")
            return
        }
        statements.didPrepare("SELECT 1", as: name)
        guard case .execute(let again) = statements.plan(for: "SELECT 1") else {
            Issue.record("a prepared text should be executed")
            return
        }
        #expect(again == name)
    }

    @Test func afterManyExecutionsTheConnectionIsDueForReplanning() {
        var statements = PreparedStatements()
        _ = statements.plan(for: "SELECT 1")
        statements.didPrepare("SELECT 1", as: "authlog_1")
        for _ in 0..<PreparedStatements.replanAfterExecutions {
            #expect(!statements.isDueForReplanning)
            _ = statements.plan(for: "SELECT 1")
        }
        #expect(statements.isDueForReplanning)
        statements.didDeallocateAll()
        #expect(!statements.isDueForReplanning)
        guard case .unnamed = statements.plan(for: "SELECT 1") else {
            Issue.record("after deallocating, a text starts over")
            return
        }
    }
}

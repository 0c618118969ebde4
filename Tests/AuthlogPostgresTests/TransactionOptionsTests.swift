import Testing

@testable import AuthlogPostgres

/// ``TransactionOptions``: the BEGIN statement each set of options sends.
struct TransactionOptionsTests {
    @Test func theBeginStatementSpellsTheOptions() {
        #expect(TransactionOptions.readWrite.beginStatement.sql == "BEGIN")
        #expect(
            TransactionOptions.readOnlySnapshot.beginStatement.sql == "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        )
        #expect(
            TransactionOptions(isolationLevel: .serializable).beginStatement.sql == "BEGIN ISOLATION LEVEL SERIALIZABLE"
        )
    }
}

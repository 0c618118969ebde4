import AuthlogPostgres
import Testing

/// ``SQLQuery``: interpolated values become `$n` parameters and never SQL text, and printing hides them.
struct SQLQueryTests {
    @Test func interpolatedValuesBecomeNumberedParameters() {
        let name = "robert'); DROP TABLE students;--"
        let query: SQLQuery = "SELECT * FROM t WHERE name = \(name) AND age > \(42) AND ok = \(true)"
        #expect(query.sql == "SELECT * FROM t WHERE name = $1 AND age > $2 AND ok = $3")
        #expect(query.binds == [name, "42", "t"])
    }

    @Test func aNilValueIsBoundAsNull() {
        let missing: Int? = nil
        let query: SQLQuery = "UPDATE t SET x = \(missing), y = \(Int?.some(7))"
        #expect(query.sql == "UPDATE t SET x = $1, y = $2")
        #expect(query.binds == [nil, "7"])
    }

    @Test func unescapedTextAndBindsInALoopKeepTheNumbering() {
        var query: SQLQuery = "INSERT INTO t (\(unescaped: "a, b")) VALUES "
        for (index, value) in ["x", "y"].enumerated() {
            if index > 0 { query.append(unescaped: ", ") }
            let first = query.bind(value)
            let second = query.bind(Int?.none)
            query.append(unescaped: "(\(first), \(second))")
        }
        #expect(query.sql == "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)")
        #expect(query.binds == ["x", nil, "y", nil])
    }

    @Test func literalsAndUnsafeSQLHaveNoParameters() {
        let literal: SQLQuery = "SELECT 1"
        #expect(literal.sql == "SELECT 1")
        #expect(literal.binds.isEmpty)
        let built = SQLQuery(unsafeSQL: "SELECT " + "2")
        #expect(built.sql == "SELECT 2")
        #expect(built.binds.isEmpty)
    }

    @Test func printingAQueryShowsItsParametersAsStars() {
        let secret = "hunter2"
        let query: SQLQuery = "SELECT \(secret), \(String?.none)"
        #expect(query.description == "SELECT $1, $2 [****, ****]")
        #expect(!"\(query)".contains(secret))
        let plain: SQLQuery = "SELECT 1"
        #expect(plain.description == "SELECT 1 []")
    }
}

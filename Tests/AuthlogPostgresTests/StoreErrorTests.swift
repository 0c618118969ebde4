import AuthlogPostgres
import Testing

/// ``StoreError``: what its descriptions show and hide, and which failures mean the store is unreachable.
struct StoreErrorTests {
    @Test func theDescriptionIsTheCodeAndTheMessage() {
        let error = StoreError(.decoding, "column 0 is NULL")
        #expect(error.description == "decoding_failed: column 0 is NULL")
        #expect(error.debugDescription == "decoding_failed: column 0 is NULL")
    }

    @Test func aServerErrorShowsItsSQLStateAndKeepsItsDetailForDebugging() {
        let error = StoreError(
            .server,
            "duplicate key value violates unique constraint \"t_pkey\"",
            sqlState: "23505",
            detail: "Key (x)=(secret) already exists."
        )
        #expect(
            error.description
                == "server_error (SQLSTATE 23505): duplicate key value violates unique constraint \"t_pkey\""
        )
        #expect(!error.description.contains("secret"))
        #expect(error.debugDescription.hasSuffix(" — Key (x)=(secret) already exists."))
    }

    @Test func dataExceptionsMaskTheQuotedInputTheyEcho() {
        let error = StoreError(.server, "invalid input syntax for type integer: \"hunter2\"", sqlState: "22P02")
        #expect(error.description == "server_error (SQLSTATE 22P02): invalid input syntax for type integer: \"****\"")
        #expect(!error.description.contains("hunter2"))
        #expect(error.debugDescription.contains("hunter2"))
    }

    @Test func theSentenceForAPersonHasNoCodeNorSQLStateAndNamesTheRoleAPrivilegeNeeds() {
        let denied = StoreError(.server, "permission denied for table api_keys", sqlState: "42501")
        #expect(
            denied.sentence
                == "the database role given may not do this (PostgreSQL: permission denied for table api_keys); run "
                + "it with the URL of the role that owns authlog's schema (the one `authlog migrate` runs as, a "
                + "member of authlog_owner)"
        )
        #expect(!denied.sentence.contains("42501"))
        let data = StoreError(.server, "invalid input syntax for type integer: \"hunter2\"", sqlState: "22P02")
        #expect(data.sentence == "invalid input syntax for type integer: \"****\"")
        #expect(StoreError(.decoding, "column 0 is NULL").sentence == "column 0 is NULL")
        let duplicate = StoreError(
            .server,
            "duplicate key value violates unique constraint \"t_pkey\"",
            sqlState: "23505"
        )
        #expect(duplicate.sentence == "duplicate key value violates unique constraint \"t_pkey\"")
    }

    @Test func connectionAndServerAvailabilityFailuresMeanUnreachable() {
        #expect(StoreError(.connectionFailed, "no route").meansStoreUnreachable)
        for state in ["08006", "53300", "57P01", "57P02", "57P03"] {
            #expect(StoreError(.server, "x", sqlState: state).meansStoreUnreachable, "\(state)")
        }
        #expect(!StoreError(.server, "x", sqlState: "23505").meansStoreUnreachable)
        #expect(!StoreError(.server, "x").meansStoreUnreachable)
        #expect(!StoreError(.decoding, "x", sqlState: "08006").meansStoreUnreachable)
        #expect(StoreError(.server, "x", sqlState: "53300").logDetail == "server_error 53300")
    }
}

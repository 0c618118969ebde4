import AuthlogPostgres

/// What `authlog migrate` needs from its role, checked before anything is changed, so that a missing
/// privilege is named in one sentence instead of surfacing as a server error half-way through.
enum MigrationPrivileges {
    /// Refuses, naming the privilege, when the current role cannot create the group roles (and they are
    /// missing) or cannot create the schemas (and they are missing).
    /// - Parameters:
    ///   - connection: a connection as the role that migrates (after any `SET ROLE`).
    ///   - creatingRoles: whether the migration that creates `authlog_app` and `authlog_reader` is pending.
    /// - Throws: ``StoreError`` `.insufficientPrivilege`, or the server's error.
    static func check(on connection: Connection, creatingRoles: Bool) async throws {
        let row = try await connection.query(
            """
            SELECT r.rolsuper OR r.rolcreaterole,
                   has_database_privilege(current_database(), 'CREATE'),
                   (SELECT count(*) FROM pg_roles WHERE rolname IN ('authlog_app', 'authlog_reader')),
                   to_regnamespace('authlog') IS NOT NULL AND to_regnamespace('dashboard') IS NOT NULL,
                   current_user, current_database()
            FROM pg_roles r WHERE r.rolname = current_user
            """
        ).first
        guard let row else { return }
        let canCreateRoles = try row.decode(Bool.self, at: 0)
        let canCreateSchemas = try row.decode(Bool.self, at: 1)
        let existingRoles = try row.decode(Int.self, at: 2)
        let schemasExist = try row.decode(Bool.self, at: 3)
        let role = try row.decode(String.self, at: 4)
        let database = try row.decode(String.self, at: 5)
        if creatingRoles, existingRoles < 2, !canCreateRoles {
            throw StoreError(
                .insufficientPrivilege,
                "authlog migrate needs the CREATEROLE privilege to create the roles authlog_app and authlog_reader "
                    + "(or create them first with deploy/roles.sql)"
            )
        }
        if !schemasExist, !canCreateSchemas {
            throw StoreError(
                .insufficientPrivilege,
                "authlog migrate needs the CREATE privilege on database \(database) to create the schemas authlog "
                    + "and dashboard (GRANT CREATE ON DATABASE \(database) TO \(role))"
            )
        }
    }

    /// Runs one step of the migration; a refusal for lack of privilege (SQLSTATE 42501) becomes one sentence
    /// naming the step and the server's reason.
    /// - Throws: ``StoreError`` `.insufficientPrivilege`, or what `body` throws.
    static func naming(step: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as StoreError where error.sqlState == "42501" {
            throw StoreError(
                .insufficientPrivilege,
                "authlog migrate lacks a privilege to \(step): \(error.message) (see deploy/roles.sql)"
            )
        }
    }
}

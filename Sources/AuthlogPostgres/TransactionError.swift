/// A transaction's body failed and the ROLLBACK that followed failed too: both errors, so that neither is
/// lost. (When only the body fails, its error comes out unchanged; when BEGIN or COMMIT fails, the
/// ``StoreError`` of that statement does.)
///
/// `description` holds the two errors' descriptions, which for ``StoreError`` never contain bound values.
public struct TransactionError: Error, CustomStringConvertible {
    /// What the body threw.
    public var bodyError: any Error
    /// What the ROLLBACK threw.
    public var rollbackError: any Error

    /// Creates the error from the body's and the rollback's errors.
    public init(bodyError: any Error, rollbackError: any Error) {
        self.bodyError = bodyError
        self.rollbackError = rollbackError
    }

    public var description: String {
        "the transaction failed (\(self.bodyError)) and its ROLLBACK failed too (\(self.rollbackError))"
    }
}

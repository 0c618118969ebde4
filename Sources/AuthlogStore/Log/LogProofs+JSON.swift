public import AuthlogCore
import Foundation

extension LogProofs.Inclusion {
    /// The proof as `GET /v1/log/proof/inclusion` and `authlog prove` print it: hashes in standard base64,
    /// `leaf_index` = position − 1 (RFC 9162, Go's `tlog.CheckRecord`).
    public var json: JSONValue {
        .object([
            ("position", .number(String(self.position))), ("leaf_index", .number(String(self.position - 1))),
            ("tree_size", .number(String(self.treeSize))), ("leaf_hash", LogProofs.base64(self.leafHash)),
            ("root_hash", LogProofs.base64(self.root)), ("proof", .array(self.hashes.map(LogProofs.base64))),
        ])
    }
}

extension LogProofs.Consistency {
    /// The proof as `GET /v1/log/proof/consistency` prints it (Go's `tlog.CheckTree`).
    public var json: JSONValue {
        .object([
            ("from", .number(String(self.from))), ("to", .number(String(self.to))),
            ("from_root_hash", LogProofs.base64(self.fromRoot)), ("to_root_hash", LogProofs.base64(self.toRoot)),
            ("proof", .array(self.hashes.map(LogProofs.base64))),
        ])
    }
}

extension LogProofs {
    /// A hash in standard base64, as checkpoints and proofs spell it.
    static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }
}

import AuthlogCrypto

/// What a data key and the data keys it replaced sealed, opened with the first of them that opens it: the one
/// rule the personal-data vault, the provider credentials and `authlog keys rewrap` share.
enum DataKeyOpening {
    /// The plaintext of `box` under the first of `keys` that opens it with `context`; nil when none does.
    static func open(_ box: AESGCM.SealedBox, keys: [[UInt8]], context: [UInt8]) -> [UInt8]? {
        for key in keys {
            if let opened = try? AESGCM.open(box, key: key, authenticating: context) { return opened }
        }
        return nil
    }
}

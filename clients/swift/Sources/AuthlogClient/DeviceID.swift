/// The per-install device id that the client sends with every sign-in and refresh (`Authlog-Device-Id`), so that
/// authlog can tell this install's sign-ins from another device's without the user agent and the network.
///
/// It is never a hardware identifier: 32 bytes from the system's secure random generator, in unpadded base64url
/// (43 characters), made the first time it is needed and kept by the ``TokenStore``
/// (``TokenStore/loadOrCreateDeviceID()``).
enum DeviceID {
    /// The request header that carries the id.
    static let header = "Authlog-Device-Id"

    /// A fresh id: 43 base64url characters over 32 random bytes.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system's random generator fails.
    static func make() throws(AuthlogClientError) -> String {
        ClientEncoding.base64URL(try ClientCrypto.randomBytes(count: 32))
    }

    /// Whether `text` is an id authlog takes: 22 to 64 base64url characters (the client makes 43). A store's value
    /// in any other form is never sent; the client's own stores make a new id in its place.
    static func isWellFormed(_ text: String) -> Bool {
        (22...64).contains(text.utf8.count) && text.utf8.allSatisfy(Self.isBase64URL)
    }

    /// Whether `byte` is one of base64url's 64 characters (RFC 4648 §5).
    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

/// The `event_text` form of an event's canonical bytes in `GET /v1/log/receipts?event_form=text`: one character
/// per byte (U+0000…U+00FF), so that gzip sees the text one user's events repeat, which base64 hides. The server
/// writes it, the device reads it back.
public enum EventText {
    /// `bytes`, one character per byte.
    public static func text(of bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return String(scalars)
    }

    /// The bytes of `text`; nil when a character is above U+00FF.
    public static func bytes(of text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }
}

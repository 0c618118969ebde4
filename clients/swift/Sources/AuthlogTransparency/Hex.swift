/// Lowercase hexadecimal text for bytes, for key hashes and IDs in verifier keys and reports.
///
/// The server's AuthlogCore has a public `Hex` of its own: AuthlogCore imports Foundation only and this module
/// imports nothing of the server, so neither can use the other's. This one is `package`: AuthlogClient shares it,
/// and nothing outside this package sees it, so there is one public `Hex` in any program.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The lowercase hex spelling of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            output.append(Self.digits[Int(byte >> 4)])
            output.append(Self.digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}

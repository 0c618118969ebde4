#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host IP address (IPv4 or IPv6, no prefix length), held as its 4 or 16 network-order bytes.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The address bytes: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses the textual form (`192.0.2.1`, `2001:db8::1`); `nil` for anything else, prefixes included.
    public init?(_ text: String) {
        var buffer = [UInt8](repeating: 0, count: 16)
        if text.utf8.contains(UInt8(ascii: ":")) {
            guard inet_pton(AF_INET6, text, &buffer) == 1 else { return nil }
            self.bytes = buffer
        } else {
            guard inet_pton(AF_INET, text, &buffer) == 1 else { return nil }
            self.bytes = Array(buffer.prefix(4))
        }
    }

    /// The conventional text form (`inet_ntop`).
    public var description: String {
        var output = [CChar](repeating: 0, count: 64)
        let family = self.bytes.count == 4 ? AF_INET : AF_INET6
        let written = self.bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &output, socklen_t(output.count))
        }
        guard written != nil else { return "" }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let address = IPAddress(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an IP address")
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}

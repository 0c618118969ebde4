public import AuthlogCore
import Foundation

/// The proxies whose `X-Forwarded-For` header is believed, as CIDR blocks.
///
/// The client address is the connection's peer unless that peer is a trusted proxy; then the
/// `X-Forwarded-For` list is read from the right, skipping trusted proxies, and the first other address is
/// the client. A header from an untrusted peer is ignored, so nobody can choose the recorded address.
public struct TrustedProxies: Sendable {
    struct Block: Sendable {
        let network: [UInt8]
        let prefixLength: Int

        func contains(_ address: IPAddress) -> Bool {
            guard address.bytes.count == self.network.count else { return false }
            var remaining = self.prefixLength
            for (byte, networkByte) in zip(address.bytes, self.network) where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if byte & mask != networkByte & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    private let blocks: [Block]

    /// Parses entries such as `10.0.0.0/8`, `192.168.1.7` or `::1`.
    /// - Throws: ``ServerConfiguration/Invalid`` naming the first bad entry.
    public init(_ entries: [String]) throws(ServerConfiguration.Invalid) {
        var blocks: [Block] = []
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let address = parts.first.flatMap({ IPAddress($0) }) else {
                throw ServerConfiguration.Invalid(
                    description: "trusted_proxies: \(entry) is not an address or CIDR block"
                )
            }
            let maximum = address.bytes.count * 8
            guard let length = parts.count == 2 ? Int(parts[1]) : maximum, (0...maximum).contains(length) else {
                throw ServerConfiguration.Invalid(description: "trusted_proxies: \(entry) has a bad prefix length")
            }
            blocks.append(Block(network: address.bytes, prefixLength: length))
        }
        self.blocks = blocks
    }

    /// Whether `address` is a trusted proxy.
    public func contains(_ address: IPAddress) -> Bool { self.blocks.contains { $0.contains(address) } }

    /// The client's address, given the connection's `peer` and the `X-Forwarded-For` header values.
    public func clientAddress(peer: IPAddress?, forwardedFor: [String]) -> IPAddress? {
        guard let peer, self.contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { break }
            client = address
            if !self.contains(address) { break }
        }
        return client
    }
}

import AuthlogCore

/// A group of routes that share one per-address rate limit (`rate_limits.per_address.<group>`).
public enum LimitedRoute: String, Sendable, CaseIterable, Hashable {
    /// `POST /v1/signin/{provider}` and the provider callbacks (Apple notifications, Kakao unlink).
    case signin
    /// `POST /v1/token/refresh`.
    case refresh
    /// `POST /v1/nonces`.
    case nonce
    /// `POST /oauth/revoke` and `POST /v1/logout`.
    case revoke
    /// `POST /oauth/introspect`.
    case introspect
    /// The public log reads: the checkpoint, proofs, receipts, tiles and the minimum index.
    case logRead = "log_read"
    /// The operator and auditor routes: `/v1/events`, `/v1/users/…`, `/v1/sessions/…`, `/v1/admin/…`,
    /// `/v1/reports/…`.
    case audit
    /// The signed-in user's own routes, `/v1/me` and `/v1/me/…`: each request is recorded (an own read as
    /// `audit.accessed`, a refused action as `account.action_refused`), so without a limit one account could
    /// grow the log at the rate it sends.
    case account

    /// The group of the route `method path` (the path as docs/openapi.yaml writes it), or nil for a route no
    /// per-address limit applies to (`/healthz`, `/readyz`, `/metrics`, the key set and discovery).
    public static func of(method: String, path: String) -> LimitedRoute? {
        switch (method, path) {
        case ("POST", "/v1/signin/{provider}"), (_, "/v1/providers/apple/notifications"),
            (_, "/v1/providers/kakao/unlink"):
            return .signin
        case ("POST", "/v1/token/refresh"): return .refresh
        case ("POST", "/v1/nonces"): return .nonce
        case ("POST", "/oauth/revoke"), ("POST", "/v1/logout"): return .revoke
        case ("POST", "/oauth/introspect"): return .introspect
        case (_, "/checkpoint"), (_, "/tile/{tile_path}"), (_, "/minimum-index"): return .logRead
        case (_, let path) where path.hasPrefix("/v1/log/"): return .logRead
        case (_, let path)
        where ["/v1/events", "/v1/users/", "/v1/sessions/", "/v1/admin/", "/v1/reports/"].contains(where: {
            path.hasPrefix($0)
        }):
            return .audit
        case (_, let path) where path == "/v1/me" || path.hasPrefix("/v1/me/"): return .account
        default: return nil
        }
    }
}

extension IPAddress {
    /// The key a per-address limit counts this address by: an IPv4 address itself (also when written as an
    /// IPv4-mapped IPv6 address), an IPv6 address's /64 (one host is usually given a whole /64, so counting
    /// single IPv6 addresses would let it rotate freely), written as `2001:db8:0:1::/64`.
    var limitKey: String {
        let bytes = self.bytes
        guard bytes.count == 16 else { return self.description }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}

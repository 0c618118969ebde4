import AuthlogAccounts
import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Every default lives in ``ConfigurationDefaults``: the resolved settings of an empty configuration are its
/// values, and docs/configuration.md states the same ones.
struct ConfigurationDefaultsTests {
    /// The members of docs/configuration.md's tables whose default is a literal, and the constant it must be.
    static let documented: [(member: String, value: String)] = Self.fixed + Self.perAddress

    /// The per-address rate limits, one row per route group.
    static let perAddress: [(member: String, value: String)] = LimitedRoute.allCases.map { route in
        (member: "rate_limits.per_address." + route.rawValue, value: Self.rate(RateLimitDefaults.perAddress(route)))
    }

    /// Every other member.
    static let fixed: [(member: String, value: String)] = [
        ("access_token.ttl_seconds", String(ConfigurationDefaults.accessTokenTTLSeconds)),
        ("refresh_token.reuse_grace_seconds", String(ConfigurationDefaults.refreshReuseGraceSeconds)),
        ("access_token.audience", ConfigurationDefaults.accessTokenAudience),
        ("account.reauthentication_window_seconds", String(ConfigurationDefaults.reauthenticationWindowSeconds)),
        ("account.link_by_verified_email", String(ConfigurationDefaults.linkByVerifiedEmail)),
        ("account.notification_maximum_age_seconds", String(ConfigurationDefaults.notificationMaximumAgeSeconds)),
        ("account.revocation_retry_seconds", String(ConfigurationDefaults.revocationRetrySeconds)),
        ("nonce_ttl_seconds", String(ConfigurationDefaults.nonceTTLSeconds)),
        ("provider_timeout_seconds", String(ConfigurationDefaults.providerTimeoutSeconds)),
        ("request_body_limit", String(ConfigurationDefaults.requestBodyLimit)),
        ("log.checkpoint_every_events", String(ConfigurationDefaults.checkpointEveryEvents)),
        ("log.checkpoint_every_seconds", String(ConfigurationDefaults.checkpointEverySeconds)),
        ("log.witness_interval_seconds", String(ConfigurationDefaults.witnessIntervalSeconds)),
        ("connections.header_timeout_seconds", String(ConfigurationDefaults.headerTimeoutSeconds)),
        ("connections.body_timeout_seconds", String(ConfigurationDefaults.bodyTimeoutSeconds)),
        ("connections.idle_timeout_seconds", String(ConfigurationDefaults.idleTimeoutSeconds)),
        ("connections.maximum_connections", String(ConfigurationDefaults.maximumConnections)),
        ("connections.maximum_connections_per_address", String(ConfigurationDefaults.maximumConnectionsPerAddress)),
        ("rate_limits.enabled", "true"),
        ("rate_limits.window_seconds", String(RateLimitDefaults.windowSeconds)),
        ("rate_limits.per_family", Self.rate(RateLimitDefaults.perFamily)),
        ("rate_limits.per_api_key", Self.rate(RateLimitDefaults.perAPIKey)),
        ("places.reload_interval_seconds", String(AccountComponents.defaultPlacesReloadSeconds)),
        ("alerts.enabled", "true"),
        ("alerts.maximum_speed_kmh", String(Int(SigninJudge.Settings().maximumKilometresPerHour))),
        ("alerts.known_devices", String(SigninJudge.Settings().maximumDevices)),
        ("alerts.known_areas", String(SigninJudge.Settings().maximumAreas)),
        ("alerts.history_signins", String(SigninAlertRules().historySignins)),
    ]

    /// A rate as the documentation writes it: `10/s, burst 50`.
    static func rate(_ limit: RateLimit) -> String {
        let perSecond =
            limit.perSecond.rounded() == limit.perSecond ? String(Int(limit.perSecond)) : String(limit.perSecond)
        return "\(perSecond)/s, burst \(limit.burst)"
    }

    @Test func theDocumentedDefaultsAreTheOnesInForce() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        for (member, value) in Self.documented {
            let row = text.split(separator: "\n").first { $0.hasPrefix("| `\(member)` |") }
            #expect(row?.hasPrefix("| `\(member)` | `\(value)`") == true, "\(member): documented \(row ?? "nowhere")")
        }
        #expect(
            text.contains("| `host`, `port` | `\(ConfigurationDefaults.host)`, `\(ConfigurationDefaults.port)` |")
        )
    }

    @Test func anEmptyConfigurationResolvesToTheDefaults() throws {
        let empty = try JSONValue.members([:]).decode(ServerConfiguration.self)
        let resolved = try ServiceSettings(configuration: empty)
        let plain = ServiceSettings()
        #expect(resolved.accessTokenLifetime == Int64(ConfigurationDefaults.accessTokenTTLSeconds))
        #expect(resolved.accessTokenLifetime == plain.accessTokenLifetime)
        #expect(resolved.lifetimes == plain.lifetimes)
        #expect(resolved.lifetimes.rememberMe.idle == Int64(ConfigurationDefaults.rememberMeIdleSeconds))
        #expect(resolved.lifetimes.plain.absolute == Int64(ConfigurationDefaults.sessionTTLSeconds))
        #expect(resolved.reauthenticationWindow == Int64(ConfigurationDefaults.reauthenticationWindowSeconds))
        #expect(resolved.nonceLifetime == Int64(ConfigurationDefaults.nonceTTLSeconds))
        #expect(resolved.revocationRetryBase == Int64(ConfigurationDefaults.revocationRetrySeconds))
        #expect(resolved.notificationMaximumAge == Int64(ConfigurationDefaults.notificationMaximumAgeSeconds))
        #expect(resolved.refreshReuseGrace == Int64(ConfigurationDefaults.refreshReuseGraceSeconds))
        #expect(resolved.refreshReuseGrace == plain.refreshReuseGrace)
        let limits = try ConnectionLimits(empty.connections)
        #expect(limits.headerTimeout == .seconds(ConfigurationDefaults.headerTimeoutSeconds))
        #expect(limits.maximumConnections == ConfigurationDefaults.maximumConnections)
        #expect(limits.maximumPerAddress == ConfigurationDefaults.maximumConnectionsPerAddress)
        let checkpoints = try CheckpointSettings(configuration: empty, environment: [:])
        #expect(checkpoints.everyEvents == ConfigurationDefaults.checkpointEveryEvents)
        #expect(checkpoints.everySeconds == ConfigurationDefaults.checkpointEverySeconds)
        let rates = try RateLimitPolicy(configuration: empty)
        #expect(rates.enabled)
        #expect(rates.windowSeconds == RateLimitDefaults.windowSeconds)
        #expect(rates.perFamily == RateLimitDefaults.perFamily)
        #expect(rates.perAPIKey == RateLimitDefaults.perAPIKey)
        for route in LimitedRoute.allCases {
            #expect(rates.perAddress[route] == RateLimitDefaults.perAddress(route), "\(route)")
        }
        #expect(checkpoints.tileDirectory == nil)
    }
}

public import AuthlogAccounts
import AuthlogCrypto
import Foundation

extension AccountComponents {
    /// The `dpop` section checked as `serve` checks it, nonces included (`authlog config check`).
    /// - Throws: ``ServerConfiguration/Invalid`` naming a bad value.
    public static func checkDPoP(of configuration: ServerConfiguration) throws {
        _ = try Self.checkedPublicURL(configuration.publicURL)
        let settings = try Self.dpopSettings(of: configuration)
        // The data key is read only when nonces need it (config check leaves the keys to `serve` otherwise).
        guard settings.noncesRequired else { return }
        _ = try Self.dpopNonces(settings: settings, dataKey: try Self.dataKeys(of: configuration).data)
    }

    /// `public_url`, when it is an absolute `http` or `https` URL without query, fragment or user info: the base
    /// of the URL every DPoP proof names (`htu`), and the tokens' issuer.
    /// - Throws: ``ServerConfiguration/Invalid`` otherwise.
    public static func checkedPublicURL(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
            url.password == nil
        else {
            throw ServerConfiguration.Invalid(
                description: "public_url must be an absolute http or https URL without query, fragment or user info"
            )
        }
        return text
    }

    /// The `dpop` section, each value checked.
    /// - Throws: ``ServerConfiguration/Invalid`` naming a bad value.
    public static func dpopSettings(of configuration: ServerConfiguration) throws -> DPoPSettings {
        let section = configuration.dpop
        var settings = DPoPSettings()
        if let text = section?.policy { settings.defaultPolicy = try Self.dpopPolicy(text, "dpop.policy") }
        for entry in section?.clients ?? [] {
            guard !entry.clientID.isEmpty, entry.clientID.utf8.count <= 200 else {
                throw ServerConfiguration.Invalid(description: "dpop.clients: a client_id must be 1 to 200 bytes")
            }
            guard settings.clients[entry.clientID] == nil else {
                throw ServerConfiguration.Invalid(description: "dpop.clients names \(entry.clientID) twice")
            }
            settings.clients[entry.clientID] = try Self.dpopPolicy(entry.policy, "dpop.clients.\(entry.clientID)")
        }
        settings.noncesRequired = section?.nonces ?? settings.noncesRequired
        func seconds(_ value: Int?, _ name: String, _ fallback: Int64, _ range: ClosedRange<Int>) throws -> Int64 {
            Int64(try ServiceSettings.checked(value, "dpop.\(name)", default: Int(fallback), in: range))
        }
        settings.nonceRotationSeconds = try seconds(
            section?.nonceRotationSeconds,
            "nonce_rotation_seconds",
            settings.nonceRotationSeconds,
            10...86_400
        )
        settings.maximumAge = try seconds(
            section?.maximumAgeSeconds,
            "maximum_age_seconds",
            settings.maximumAge,
            5...600
        )
        settings.maximumSkew = try seconds(
            section?.maximumSkewSeconds,
            "maximum_skew_seconds",
            settings.maximumSkew,
            0...300
        )
        return settings
    }

    /// The server's nonces when `dpop.nonces` is on: derived from the data key, so that every `serve` process
    /// of a deployment hands out and accepts the same ones.
    /// - Throws: ``ServerConfiguration/Invalid`` when nonces are on without a data key.
    static func dpopNonces(settings: DPoPSettings, dataKey: [UInt8]?) throws -> DPoPNonces? {
        guard settings.noncesRequired else { return nil }
        guard let dataKey else {
            throw ServerConfiguration.Invalid(description: "dpop.nonces needs data_key (every process derives them)")
        }
        return try DPoPNonces(secret: dataKey, rotationSeconds: settings.nonceRotationSeconds)
    }

    private static func dpopPolicy(_ text: String, _ key: String) throws -> DPoPSettings.Policy {
        guard let policy = DPoPSettings.Policy(rawValue: text) else {
            throw ServerConfiguration.Invalid(description: "\(key) must be off, optional or required")
        }
        return policy
    }
}

public import AuthlogAccounts
import AuthlogCrypto

extension AccountComponents {
    /// The `dpop` section checked as `serve` checks it, nonces included (`authlog config check`).
    /// - Throws: ``ServerConfiguration/Invalid`` naming a bad value.
    public static func checkDPoP(of configuration: ServerConfiguration) throws {
        _ = try Self.dpopNonces(
            settings: try Self.dpopSettings(of: configuration),
            dataKey: try Self.dataKeys(of: configuration).data
        )
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
        settings.nonceRotationSeconds = Int64(
            try ServiceSettings.checked(
                section?.nonceRotationSeconds,
                "dpop.nonce_rotation_seconds",
                default: Int(settings.nonceRotationSeconds),
                in: 10...86_400
            )
        )
        settings.maximumAge = Int64(
            try ServiceSettings.checked(
                section?.maximumAgeSeconds,
                "dpop.maximum_age_seconds",
                default: Int(settings.maximumAge),
                in: 5...600
            )
        )
        settings.maximumSkew = Int64(
            try ServiceSettings.checked(
                section?.maximumSkewSeconds,
                "dpop.maximum_skew_seconds",
                default: Int(settings.maximumSkew),
                in: 0...300
            )
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

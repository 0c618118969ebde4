public import AuthlogAccounts
public import AuthlogCore
public import AuthlogPlaces

extension AccountComponents {
    /// The default of `places.reload_interval_seconds`.
    public static let defaultPlacesReloadSeconds = 300

    /// `alerts` (docs/configuration.md): speeds of 100 to 20,000 km/h, 1 to 200 known devices and areas, 1 to
    /// 200 sign-ins of history, each policy `record`, `reauthenticate` or `deny`.
    /// - Throws: ``ServerConfiguration/Invalid`` for a value outside its range or an unknown policy.
    public static func alertSettings(of configuration: ServerConfiguration) throws -> SigninAlertSettings {
        let section = configuration.alerts
        var settings = SigninAlertSettings()
        settings.enabled = section?.enabled ?? true
        var judge = SigninJudge.Settings()
        if let speed = section?.maximumSpeedKmh {
            guard speed.isFinite, (100...20_000).contains(speed) else {
                throw ServerConfiguration.Invalid(description: "alerts.maximum_speed_kmh must be 100 to 20000")
            }
            judge.maximumKilometresPerHour = speed
        }
        judge.maximumDevices = try ServiceSettings.checked(
            section?.knownDevices,
            "alerts.known_devices",
            default: judge.maximumDevices,
            in: 1...200
        )
        judge.maximumAreas = try ServiceSettings.checked(
            section?.knownAreas,
            "alerts.known_areas",
            default: judge.maximumAreas,
            in: 1...200
        )
        if let networks = section?.hostingNetworks { judge.hostingNetworks = Set(networks) }
        settings.rules = SigninAlertRules(
            judge: judge,
            policies: try Self.policies(section?.policies),
            historySignins: try ServiceSettings.checked(
                section?.historySignins,
                "alerts.history_signins",
                default: settings.rules.historySignins,
                in: SigninAlertRules.historySigninsRange
            )
        )
        return settings
    }

    /// `alerts.policies`, each checked.
    private static func policies(
        _ section: ServerConfiguration.AlertSettings.Policies?
    ) throws -> [SigninJudgement.Kind: SigninAlertPolicy] {
        let named: [(SigninJudgement.Kind, String?)] = [
            (.newDevice, section?.newDevice), (.newCountry, section?.newCountry), (.newRegion, section?.newRegion),
            (.impossibleTravel, section?.impossibleTravel), (.hostingNetwork, section?.hostingNetwork),
        ]
        var policies: [SigninJudgement.Kind: SigninAlertPolicy] = [:]
        for (kind, value) in named {
            guard let value else { continue }
            guard let policy = SigninAlertPolicy(rawValue: value) else {
                throw ServerConfiguration.Invalid(
                    description: "alerts.policies.\(kind.rawValue) must be record, reauthenticate or deny"
                )
            }
            policies[kind] = policy
        }
        return policies
    }

    /// The operator's MaxMind DB files opened, when `places.city_database` names one (an ASN file alone is
    /// refused: it places nothing).
    /// - Throws: ``PlaceDatabaseError`` naming the setting and the path of a missing, unreadable or wrong file;
    ///   ``ServerConfiguration/Invalid`` for an ASN file without a city file or a bad interval.
    public static func placeLookup(of configuration: ServerConfiguration) throws -> PlaceLookup? {
        let section = configuration.places
        _ = try ServiceSettings.checked(
            section?.reloadIntervalSeconds,
            "places.reload_interval_seconds",
            default: Self.defaultPlacesReloadSeconds,
            in: 1...86_400
        )
        guard let city = section?.cityDatabase, !city.isEmpty else {
            if section?.asnDatabase != nil {
                throw ServerConfiguration.Invalid(description: "places.asn_database needs places.city_database")
            }
            return nil
        }
        return try PlaceLookup(files: PlaceFiles(city: city, asn: section?.asnDatabase))
    }
}

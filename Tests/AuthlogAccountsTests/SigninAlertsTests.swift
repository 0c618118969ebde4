import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// Sign-in alerts decided by SigninService over the in-memory stores: each sign-in judged against the user's
/// newest sign-ins read from the log, `signin.flagged` in the same command, and each policy's answer.
struct SigninAlertsTests {
    /// Places by address, standing in for the operator's MaxMind DB file (AuthlogPlacesTests and the HTTP tests
    /// read real files).
    struct ScriptedPlaces: AddressPlaces {
        var places: [String: (place: Place?, network: AutonomousSystem?)]

        func place(of address: IPAddress) -> (place: Place?, network: AutonomousSystem?) {
            self.places[address.description] ?? (nil, nil)
        }
    }

    static let seoul = "175.45.0.1"
    static let tokyo = "203.0.113.7"
    static let busan = "175.45.9.9"
    static let cloud = "52.95.110.1"
    static let places = ScriptedPlaces(places: [
        seoul: (
            Place(
                country: "KR",
                region: "11",
                city: "Seoul",
                location: .init(latitude: 37.5665, longitude: 126.978, accuracyKilometres: 5)
            ), nil
        ),
        busan: (
            Place(
                country: "KR",
                region: "26",
                city: "Busan",
                location: .init(latitude: 35.1796, longitude: 129.0756, accuracyKilometres: 5)
            ), nil
        ),
        tokyo: (
            Place(
                country: "JP",
                region: "13",
                city: "Tokyo",
                location: .init(latitude: 35.6762, longitude: 139.6503, accuracyKilometres: 5)
            ), nil
        ),
        cloud: (
            Place(
                country: "KR",
                region: "11",
                city: "Seoul",
                location: .init(latitude: 37.5665, longitude: 126.978, accuracyKilometres: 5)
            ), AutonomousSystem(number: 16509, organization: "AMAZON-02")
        ),
    ])

    /// The rules with the test places and `policies`; `grace` turns the refresh reuse grace window on at its
    /// default (the harness turns it off).
    static func harness(
        _ policies: [SigninJudgement.Kind: SigninAlertPolicy] = [:],
        grace: Bool = false
    ) throws -> RuleHarness {
        var settings = RuleHarness.settings
        settings.alerts.places = Self.places
        settings.alerts.rules.policies = policies
        if grace { settings.refreshReuseGrace = Int64(AccountDefaults.refreshReuseGraceSeconds) }
        return try RuleHarness(settings: settings)
    }

    static func from(
        _ address: String,
        device: String? = "device-one-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        agent: String = "ExampleApp/3.1 CFNetwork/1490 Darwin/23.2.0 (iPhone)"
    ) -> RequestMetadata {
        RequestMetadata(ip: IPAddress(address), userAgent: agent, requestID: "alert-\(UUID())", deviceID: device)
    }

    func signIn(
        _ rules: RuleHarness,
        _ metadata: RequestMetadata,
        subject: String = "ana"
    ) async throws(ServiceError) -> TokenResponse {
        try await rules.signin.signIn(
            provider: "dev",
            proof: SigninProof(subject: subject),
            rememberMe: true,
            metadata: metadata
        )
    }

    @Test func aFirstSigninIsNotJudgedAndTheSameDeviceAndPlaceAgainIsUsual() async throws {
        let rules = try Self.harness()
        let first = try await self.signIn(rules, Self.from(Self.seoul))
        #expect(first.signinAlert == nil)
        let again = try await self.signIn(rules, Self.from(Self.seoul))
        #expect(again.signinAlert == nil)
        #expect(rules.events(.signinFlagged).isEmpty)
        let succeeded = try #require(rules.events(.signinSucceeded).last)
        // What the sign-in recorded: a keyed hash, never the device id itself; the place in clear to the region.
        #expect(succeeded.data["device_key"]?.stringValue?.count == 32)
        #expect(succeeded.data.canonicalText.contains("device-one") == false)
        #expect(succeeded.data["device_family"]?.stringValue == "ExampleApp on iOS")
        #expect(succeeded.data["country"]?.stringValue == "KR")
        #expect(succeeded.data["region"]?.stringValue == "11")
        #expect(succeeded.data.canonicalText.contains("Seoul") == false)
        #expect(succeeded.data["sealed_place"]?.stringValue != nil)
    }

    @Test func aNewDeviceIsFlaggedInTheSameCommandAndAnswered() async throws {
        let rules = try Self.harness()
        _ = try await self.signIn(rules, Self.from(Self.seoul))
        let other = try await self.signIn(
            rules,
            Self.from(Self.seoul, device: "device-two-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
        )
        let flagged = try #require(rules.events(.signinFlagged).first)
        let succeeded = try #require(rules.events(.signinSucceeded).last)
        #expect(flagged.data["judged_event_id"]?.stringValue == succeeded.eventID.lowercased)
        #expect(flagged.data["judgements"] == .array([.object([("kind", .string("new_device"))])]))
        #expect(flagged.data["decision"]?.stringValue == "recorded")
        #expect(flagged.reason == "new_device" && flagged.outcome == .success && flagged.userID == other.userID)
        #expect(other.signinAlert?.eventID == flagged.eventID)
        #expect(other.signinAlert?.kinds == [.newDevice])
        #expect(other.json["signin_alert"]?["judgements"] == .array([.string("new_device")]))
        // The new device is known now.
        let third = try await self.signIn(
            rules,
            Self.from(Self.seoul, device: "device-two-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
        )
        #expect(third.signinAlert == nil)
    }

    @Test func withoutADeviceIDTheFamilyAndTheNetworkStandForTheDevice() async throws {
        let rules = try Self.harness()
        _ = try await self.signIn(
            rules,
            Self.from(Self.seoul, device: nil, agent: "Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36")
        )
        // Another Chrome version on the same network is the same device; another /24 is not.
        // What the HTTP layer makes of a header that is not a device id: none.
        #expect(RequestMetadata.deviceIDIfValid("not a device id") == nil)
        #expect(RequestMetadata.deviceIDIfValid("short") == nil)
        #expect(RequestMetadata.deviceIDIfValid(String(repeating: "a", count: 65)) == nil)
        #expect(RequestMetadata.deviceIDIfValid("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-_") != nil)
        let update = try await self.signIn(
            rules,
            Self.from(
                "175.45.0.200",
                device: RequestMetadata.deviceIDIfValid("not a device id"),
                agent: "Mozilla/5.0 (Windows NT 10.0) Chrome/121.0 Safari/537.36"
            )
        )
        #expect(update.signinAlert == nil)
        // An IPv4-mapped IPv6 address (a dual-stack listener, a proxy forwarding ::ffff:…) is the same /24.
        let mapped = try await self.signIn(
            rules,
            Self.from(
                "::ffff:175.45.0.77",
                device: nil,
                agent: "Mozilla/5.0 (Windows NT 10.0) Chrome/121.0 Safari/537.36"
            )
        )
        #expect(mapped.signinAlert == nil)
        let elsewhere = try await self.signIn(
            rules,
            Self.from(Self.busan, device: nil, agent: "Mozilla/5.0 (Windows NT 10.0) Chrome/121.0 Safari/537.36")
        )
        #expect(elsewhere.signinAlert?.kinds.contains(.newDevice) == true)
    }

    @Test func theSameDeviceFromANewCountryIsImpossibleTravelWithinMinutes() async throws {
        let rules = try Self.harness()
        _ = try await self.signIn(rules, Self.from(Self.seoul))
        let tokyo = try await self.signIn(rules, Self.from(Self.tokyo))
        #expect(tokyo.signinAlert?.kinds == [.newCountry, .impossibleTravel])
        let flagged = try #require(rules.events(.signinFlagged).first)
        #expect(flagged.reason == "impossible_travel")
        let travel = try #require(
            flagged.data["judgements"].flatMap { value -> JSONValue? in
                guard case .array(let items) = value else { return nil }
                return items.first { $0["kind"]?.stringValue == "impossible_travel" }
            }
        )
        // Seoul (37.5665, 126.978) to Tokyo (35.6762, 139.6503) is 1,149 km; less both 5 km radii.
        #expect(travel["kilometres"] == .number("1139"))
        #expect(flagged.data["country"]?.stringValue == "JP")
        // A new region of a known country, same device: only the region (Busan is 325 km from Tokyo's last
        // sign-in too, and seconds later: impossible as well).
        let busan = try await self.signIn(rules, Self.from(Self.busan))
        #expect(busan.signinAlert?.kinds == [.newRegion, .impossibleTravel])
    }

    @Test func aHostingNetworkIsFlagged() async throws {
        let rules = try Self.harness()
        _ = try await self.signIn(rules, Self.from(Self.seoul))
        let cloud = try await self.signIn(rules, Self.from(Self.cloud))
        #expect(cloud.signinAlert?.kinds == [.hostingNetwork])
        let flagged = try #require(rules.events(.signinFlagged).first)
        #expect(
            flagged.data["judgements"]
                == .array([.object([("kind", .string("hosting_network")), ("autonomous_system", .number("16509"))])])
        )
    }

    @Test func denyRefusesWithSigninUnusualAndRecordsBothEventsWithoutLockingTheIdentity() async throws {
        let rules = try Self.harness([.newCountry: .deny])
        let first = try await self.signIn(rules, Self.from(Self.seoul))
        let sessions = rules.events(.signinSucceeded).count
        await #expect { try await self.signIn(rules, Self.from(Self.tokyo)) } throws: { error in
            (error as? ServiceError)?.code == "signin_unusual" && (error as? ServiceError)?.status == .unauthorized
        }
        #expect(rules.events(.signinSucceeded).count == sessions)
        let failed = try #require(rules.events(.signinFailed).last)
        let flagged = try #require(rules.events(.signinFlagged).last)
        #expect(failed.reason == "signin_unusual" && failed.userID == first.userID)
        #expect(failed.data["subject_hash"] == nil)
        #expect(flagged.data["judged_event_id"]?.stringValue == failed.eventID.lowercased)
        #expect(flagged.data["decision"]?.stringValue == "denied" && flagged.outcome == .failure)
        // The refused place is not learnt: the same sign-in is refused again; home still works.
        await #expect(throws: ServiceError.self) { try await self.signIn(rules, Self.from(Self.tokyo)) }
        #expect(try await self.signIn(rules, Self.from(Self.seoul)).signinAlert == nil)
    }

    @Test func reauthenticateAdmitsAFreshProofAndRefusesAStaleOne() async throws {
        let rules = try Self.harness([.newDevice: .reauthenticate])
        rules.google.accept("g-1", authTime: .now())
        _ = try await rules.signIn(with: "google", "g-1", metadata: Self.from(Self.seoul))
        let fresh = try await rules.signIn(
            with: "google",
            "g-1",
            metadata: Self.from(Self.seoul, device: "device-new-cccccccccccccccccccccccccccccccccc")
        )
        #expect(fresh.signinAlert?.kinds == [.newDevice])
        #expect(rules.events(.signinFlagged).last?.data["decision"]?.stringValue == "reauthenticated")
        rules.google.accept("g-1", authTime: Timestamp.now().adding(seconds: -3_600))
        await #expect {
            try await rules.signIn(
                with: "google",
                "g-1",
                metadata: Self.from(Self.seoul, device: "device-old-dddddddddddddddddddddddddddddddddd")
            )
        } throws: { error in
            (error as? ServiceError)?.code == "reauthentication_required"
        }
        #expect(rules.events(.signinFlagged).last?.data["decision"]?.stringValue == "reauthentication_required")
        #expect(rules.events(.signinFailed).last?.reason == "reauthentication_required")
        // A proof that does not say when the user authenticated is not fresh either.
        rules.google.accept("g-1")
        await #expect(throws: ServiceError.self) {
            try await rules.signIn(
                with: "google",
                "g-1",
                metadata: Self.from(Self.seoul, device: "device-odd-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
            )
        }
    }

    @Test func deletionShredsTheSealedPlaces() async throws {
        let rules = try Self.harness()
        let first = try await self.signIn(rules, Self.from(Self.seoul))
        let sealed = try #require(rules.events(.signinSucceeded).last?.data["sealed_place"]?.stringValue)
        let vault = PersonalDataVault(dataKey: RuleHarness.dataKey, keys: rules.stores.userKeys)
        let key = try #require(try await rules.stores.userKeys.wrappedKey(for: first.userID))
        #expect(try vault.openPlace(sealed, wrappedKey: key, for: first.userID)?.city == "Seoul")
        _ = try await rules.accounts.deleteAccount(bearer: first.accessToken, metadata: RuleHarness.request)
        #expect(try await rules.stores.userKeys.wrappedKey(for: first.userID) == nil)
        // The sealed text is still in the log, and nothing can open it: the key is gone.
        #expect(rules.events(.signinSucceeded).contains { $0.data["sealed_place"]?.stringValue == sealed })
    }

    @Test func alertsOffRecordNothing() async throws {
        var settings = RuleHarness.settings
        settings.alerts.enabled = false
        let rules = try RuleHarness(settings: settings)
        _ = try await self.signIn(rules, Self.from(Self.seoul))
        let other = try await self.signIn(rules, Self.from(Self.tokyo, device: nil))
        #expect(other.signinAlert == nil)
        #expect(rules.events(.signinSucceeded).allSatisfy { $0.data["device_key"] == nil })
    }

    @Test func aRefreshFromElsewhereIsFlaggedOncePerSessionAndNamesItsSession() async throws {
        let rules = try Self.harness()
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        let away = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.tokyo))
        #expect(away.signinAlert?.kinds == [.newCountry, .impossibleTravel])
        let flagged = try #require(rules.events(.signinFlagged).last)
        let refreshed = try #require(rules.events(.tokenRefreshed).last)
        #expect(flagged.data["judged_event_id"]?.stringValue == refreshed.eventID.lowercased)
        #expect(flagged.sessionID == home.sessionID && flagged.data["decision"]?.stringValue == "recorded")
        // The user who travels is told once: the next refreshes from there are usual.
        let again = try await rules.tokens.refresh(away.refreshToken, metadata: Self.from(Self.tokyo))
        #expect(again.signinAlert == nil)
        #expect(rules.events(.signinFlagged).count == 1)
        // The token moved to another device (another AuthlogClient id): flagged.
        let moved = try await rules.tokens.refresh(
            again.refreshToken,
            metadata: Self.from(Self.tokyo, device: "device-thief-ffffffffffffffffffffffffffffffff")
        )
        #expect(moved.signinAlert?.kinds == [.newDevice])
    }

    @Test func aRefreshWithoutPlacesOrADeviceIDIsNotJudged() async throws {
        var settings = RuleHarness.settings
        settings.alerts.rules.policies = [.newDevice: .deny]
        let rules = try RuleHarness(settings: settings)
        let first = try await self.signIn(rules, Self.from(Self.seoul, device: nil))
        // Another network would be another device for a sign-in; a refresh without a device id is not judged.
        let refreshed = try await rules.tokens.refresh(first.refreshToken, metadata: Self.from(Self.tokyo, device: nil))
        #expect(refreshed.signinAlert == nil && rules.events(.signinFlagged).isEmpty)
    }

    @Test func denyRefusesARefreshFromElsewhereWithoutSpendingTheToken() async throws {
        let rules = try Self.harness([.newCountry: .deny])
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        await #expect { try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.tokyo)) } throws: {
            error in
            (error as? ServiceError)?.code == "signin_unusual"
        }
        let failed = try #require(rules.events(.tokenRefreshFailed).last)
        #expect(failed.reason == "signin_unusual" && failed.sessionID == home.sessionID)
        #expect(rules.events(.signinFlagged).last?.data["decision"]?.stringValue == "denied")
        #expect(rules.events(.tokenRefreshed).isEmpty)
        // A denied refresh does not count as told: the next one from there is refused too; home still refreshes.
        await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.tokyo))
        }
        #expect(try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.seoul)).signinAlert == nil)
    }

    @Test func aStolenRefreshTokenPresentedWithoutTheDeviceIDIsANewDevice() async throws {
        let rules = try Self.harness()
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        // The same address and user agent, but no Authlog-Device-Id (curl with a copied token).
        let copied = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.seoul, device: nil))
        #expect(copied.signinAlert?.kinds == [.newDevice])
        #expect(rules.events(.signinFlagged).last?.sessionID == home.sessionID)
    }

    /// Within the grace window a spent token's replay is judged as a refresh is: a copy sent without the device
    /// id while `new_device` is denied is refused and recorded, not handed the pair the device was given.
    @Test func aCopyReplayedWithinTheGraceWindowFromAnotherDeviceIsJudged() async throws {
        let rules = try Self.harness([.newDevice: .deny], grace: true)
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        let rotated = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.seoul))
        // The device's own retry within the window gets the same pair, as before.
        let retried = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.seoul))
        #expect(retried.refreshToken == rotated.refreshToken && retried.signinAlert == nil)
        await #expect {
            try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.seoul, device: nil))
        } throws: { error in
            (error as? ServiceError)?.code == "signin_unusual"
        }
        #expect(rules.events(.tokenRefreshFailed).last?.reason == "signin_unusual")
        let flagged = try #require(rules.events(.signinFlagged).last)
        #expect(flagged.data["decision"]?.stringValue == "denied" && flagged.sessionID == home.sessionID)
        #expect(rules.events(.tokenRefreshReplayed).count == 1, "only the device's own retry was given the pair")
        // The device's successor is untouched: the device refreshes with it.
        let next = try await rules.tokens.refresh(rotated.refreshToken, metadata: Self.from(Self.seoul))
        #expect(next.sessionID == home.sessionID && next.signinAlert == nil)
    }

    /// A rotation judged unusual whose answer was lost: the retry within the window gets the same pair and the
    /// same alert (the kinds are flagged once per session, so the retry's own judgement finds nothing new).
    @Test func aRetryOfAFlaggedRotationWithinTheGraceWindowStillRaisesItsAlert() async throws {
        let rules = try Self.harness(grace: true)
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        let away = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.tokyo))
        let alert = try #require(away.signinAlert)
        #expect(alert.kinds == [.newCountry, .impossibleTravel])
        let retried = try await rules.tokens.refresh(home.refreshToken, metadata: Self.from(Self.tokyo))
        #expect(retried.refreshToken == away.refreshToken)
        #expect(retried.signinAlert?.eventID == alert.eventID && retried.signinAlert?.kinds == alert.kinds)
        #expect(rules.events(.signinFlagged).count == 1 && rules.events(.tokenRefreshReplayed).count == 1)
    }

    /// "Not me" on an intruder's flagged sign-in disowns its device: the intruder signing in again from it is a
    /// new device again (and from a new country), while the user's own device and country stay known.
    @Test func notMeDisownsTheIntrudersDeviceAndOnlyIt() async throws {
        let rules = try Self.harness()
        let own = try await self.signIn(rules, Self.from(Self.seoul))
        let intruder = Self.from(Self.tokyo, device: "device-thief-ffffffffffffffffffffffffffffffff")
        let intrusion = try #require(try await self.signIn(rules, intruder).signinAlert)
        #expect(intrusion.kinds.contains(.newDevice))
        _ = try await rules.accounts.reportNotMe(
            bearer: own.accessToken,
            eventID: intrusion.eventID.lowercased,
            metadata: RuleHarness.request
        )
        let report = try #require(rules.events(.accountNotMeReported).last)
        #expect(report.data["disowned_device_keys"]?.arrayValue?.count == 1)
        let again = try #require(try await self.signIn(rules, intruder).signinAlert)
        #expect(again.kinds.contains(.newDevice) && again.kinds.contains(.newCountry), "\(again.kinds)")
        // The user says so again (from a new sign-in of their own: the report ended every session).
        let back = try await self.signIn(rules, Self.from(Self.seoul))
        _ = try await rules.accounts.reportNotMe(
            bearer: back.accessToken,
            eventID: again.eventID.lowercased,
            metadata: RuleHarness.request
        )
        let home = try await self.signIn(rules, Self.from(Self.seoul))
        #expect(home.signinAlert == nil, "the user's own device and country are still known")
    }

    @Test func whatTheSigninWasFlaggedForIsNotFlaggedAgainOnItsRefreshes() async throws {
        let rules = try Self.harness()
        _ = try await self.signIn(rules, Self.from(Self.seoul))
        let cloud = try await self.signIn(rules, Self.from(Self.cloud))
        #expect(cloud.signinAlert?.kinds == [.hostingNetwork])
        #expect(rules.events(.signinFlagged).last?.sessionID == cloud.sessionID)
        let refreshed = try await rules.tokens.refresh(cloud.refreshToken, metadata: Self.from(Self.cloud))
        #expect(refreshed.signinAlert == nil)
        #expect(rules.events(.signinFlagged).count == 1)
    }
}

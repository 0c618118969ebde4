import AuthlogCore
import Testing

/// The judgement of a sign-in against its user's history: new device, new country or region, impossible
/// travel, hosting network; nothing on the first sign-in; the history bounded.
struct SigninJudgeTests {
    static let seoul = Place(
        country: "KR",
        region: "11",
        city: "Seoul",
        location: .init(latitude: 37.5665, longitude: 126.9780, accuracyKilometres: 20)
    )
    static let busan = Place(
        country: "KR",
        region: "26",
        city: "Busan",
        location: .init(latitude: 35.1796, longitude: 129.0756, accuracyKilometres: 200)
    )
    static let tokyo = Place(
        country: "JP",
        region: "13",
        city: "Tokyo",
        location: .init(latitude: 35.6895, longitude: 139.6917, accuracyKilometres: 10)
    )
    static let start = Timestamp(microsecondsSinceEpoch: 1_780_000_000_000_000)

    static func facts(
        _ device: String = "phone",
        _ place: Place? = seoul,
        network: UInt32? = nil,
        minutes: Int64 = 0
    ) -> SigninFacts {
        SigninFacts(
            deviceKey: device,
            family: "ExampleApp on iOS",
            place: place,
            network: network.map { AutonomousSystem(number: $0) },
            at: Self.start.adding(seconds: minutes * 60)
        )
    }

    /// The judgements of each sign-in in turn, each recorded into the history before the next.
    static func judge(_ signins: [SigninFacts], settings: SigninJudge.Settings = .init()) -> [[SigninJudgement.Kind]] {
        let judge = SigninJudge(settings: settings)
        var history = SigninHistory()
        return signins.map { facts in
            defer { history = history.recording(facts, settings: settings) }
            return judge.judge(facts, history: history).map(\.kind)
        }
    }

    @Test func theFirstSigninIsNeverJudgedAndTheSameDeviceAndPlaceAreUsual() {
        #expect(Self.judge([Self.facts("vpn-box", Self.tokyo, network: 16509)]) == [[]], "nothing to compare with")
        #expect(Self.judge([Self.facts(), Self.facts(minutes: 60)]) == [[], []])
    }

    @Test func aNewDeviceANewCountryAndANewRegion() {
        let kinds = Self.judge([
            Self.facts(), Self.facts("laptop", minutes: 600), Self.facts("laptop", Self.busan, minutes: 1_200),
            Self.facts("laptop", Self.busan, minutes: 1_800), Self.facts("laptop", Self.tokyo, minutes: 6_000),
        ])
        #expect(kinds == [[], [.newDevice], [.newRegion], [], [.newCountry]])
    }

    /// Seoul to Tokyo (1,153 km; 1,123 once both accuracy radii are allowed) in 30 minutes is impossible; in
    /// three hours it is a flight.
    @Test func seoulToTokyoInThirtyMinutesIsImpossibleTravelAndInThreeHoursItIsNot() throws {
        let judge = SigninJudge()
        let history = SigninHistory().recording(Self.facts(), settings: judge.settings)
        let fast = judge.judge(Self.facts("phone", Self.tokyo, minutes: 30), history: history)
        #expect(fast.map(\.kind) == [.newCountry, .impossibleTravel])
        let travel = try #require(fast.last)
        #expect(travel.kilometres == 1_123 && travel.seconds == 1_800 && travel.kilometresPerHour == 2_245)
        let slow = judge.judge(Self.facts("phone", Self.tokyo, minutes: 180), history: history)
        #expect(slow.map(\.kind) == [.newCountry])
        let sameMinute = judge.judge(Self.facts("phone", Self.tokyo, minutes: 0), history: history)
        #expect(sameMinute.last?.kind == .impossibleTravel && sameMinute.last?.kilometresPerHour == nil)
        let earlier = judge.judge(Self.facts("phone", Self.tokyo, minutes: -180), history: history)
        #expect(earlier.map(\.kind) == [.newCountry], "judged out of order, three hours apart all the same")
        let nearby = judge.judge(Self.facts("phone", Self.busan, minutes: 5), history: history)
        #expect(nearby.map(\.kind) == [.newRegion, .impossibleTravel], "325 km less 220 km of radii in 5 minutes")
    }

    @Test func aHostingNetworkByItsNumberAndNoPlaceMeansNoPlaceJudgement() {
        let kinds = Self.judge([
            Self.facts(), Self.facts(network: 14061, minutes: 10), Self.facts("phone", nil, minutes: 20),
        ])
        #expect(kinds == [[], [.hostingNetwork], []])
        var settings = SigninJudge.Settings()
        settings.hostingNetworks = [64500]
        #expect(
            Self.judge([Self.facts(), Self.facts(network: 14061), Self.facts(network: 64500)], settings: settings)
                == [[], [], [.hostingNetwork]]
        )
    }

    /// At most `maximumDevices` are kept, the least recently seen dropped first: that one is new again.
    @Test func theHistoryKeepsTheDevicesSeenLast() {
        var settings = SigninJudge.Settings()
        settings.maximumDevices = 2
        let kinds = Self.judge(
            [
                Self.facts("a"), Self.facts("b", minutes: 1), Self.facts("c", minutes: 2), Self.facts("b", minutes: 3),
                Self.facts("a", minutes: 4),
            ],
            settings: settings
        )
        #expect(kinds == [[], [.newDevice], [.newDevice], [], [.newDevice]])
        var history = SigninHistory()
        for minute in 0..<100 {
            history = history.recording(Self.facts("d\(minute)", minutes: Int64(minute)), settings: settings)
        }
        #expect(history.devices.map(\.key).sorted() == ["d98", "d99"])
        #expect(history.areas.count == 2, "KR and KR-11")
    }

    @Test func userAgentFamiliesIgnoreVersions() {
        let cases: [(String?, String)] = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
                "Chrome on Windows"
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows"
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
                "Safari on iOS"
            ),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "Firefox on Linux"),
            ("ExampleApp/1.0 (iPhone; iOS 18.1)", "ExampleApp on iOS"),
            ("ExampleApp/2.3 (iPhone; iOS 19.0)", "ExampleApp on iOS"),
            ("curl/8.5.0", "curl"),
            // A product name is the client's text: its control characters are escaped, as in every envelope value.
            ("Evil\u{85}App/1.0", "Evil\\u{85}App"),
            ("\u{1B}[31m/1.0", "\\u{1B}[31m"),
            (nil, "unknown"),
        ]
        for (agent, family) in cases { #expect(UserAgentFamily.of(agent) == family, "\(agent ?? "nil")") }
    }
}

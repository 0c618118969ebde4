import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// deploy/alerts.yml: promtool accepts it, its rules fire on their signals (promtool's rule unit tests), and
    /// every metric it uses is one that authlog's /metrics exports.
    @Suite
    struct AlertRulesTests {
        static let rulesFile = RepositoryFiles.url("deploy/alerts.yml")

        @Test(.enabled(if: Promtool.isAvailable)) func promtoolChecksTheRules() async throws {
            let output = try await Promtool.run(["check", "rules", Self.rulesFile.path])
            #expect(output.status == 0, "promtool check rules: \(output.text)")
            #expect(output.text.contains("SUCCESS"), "\(output.text)")
        }

        /// promtool's unit tests of the rules, on series named as /metrics names them. Annotations are dropped
        /// from a copy of the rules, so that the cases pin the alerts and their labels, not their wording.
        @Test(.enabled(if: Promtool.isAvailable)) func theRulesFireOnTheirSignalsAndNotOnQuietSeries() async throws {
            let output = try await Self.test(cases: Self.ruleCases)
            #expect(output.status == 0, "promtool test rules: \(output.text)")
        }

        @Test(.enabled(if: TestDatabase.isAvailable)) func everyMetricTheRulesUseIsOnMetrics() async throws {
            let used = try Self.metricNames(inExpressionsOf: String(contentsOf: Self.rulesFile, encoding: .utf8))
            #expect(used.count >= 4, "the rules' expressions were found: \(used)")
            try await ServerHarness.run { harness in
                let answer = try await harness.client.send("GET", "/metrics")
                #expect(answer.status == 200)
                let exported = Self.exportedNames(String(decoding: answer.body, as: UTF8.self))
                for name in used.subtracting(Self.prometheusSeries) {
                    #expect(exported.contains(name), "alerts.yml uses \(name), which /metrics does not export")
                }
            }
        }

        @Test func metricNamesAreReadFromExpressionsOnly() throws {
            let rules = """
                groups:
                  - name: x
                    rules:
                      - alert: A
                        expr: sum by (job) (increase(authlog_a_total{status=~"5.."}[5m])) > 0
                        annotations:
                          summary: "authlog_not_a_metric"
                      - alert: B
                        expr: |
                          rate(authlog_b_bucket[1m]) > 1
                          and on (job) up{job="authlog"} == 0 unless authlog_c offset 5m
                """
            #expect(
                try Self.metricNames(inExpressionsOf: rules) == [
                    "authlog_a_total", "authlog_b_bucket", "authlog_c", "up",
                ]
            )
            #expect(throws: (any Error).self) {
                try Self.metricNames(inExpressionsOf: "      expr: undocumented_function(authlog_a)")
            }
        }
    }
}

// MARK: - An alert on a scraped series

extension Checkers.AlertRulesTests {
    /// promtool's verdict on whether `alert` of deploy/alerts.yml fires, with its labels, on one sample line as
    /// `/metrics` printed it (`name{labels} value`), scraped as job `authlog`, instance `a` and held for 10 minutes.
    static func firing(scrapedLine: String, alert: String) async throws -> Promtool.Output {
        let parts = scrapedLine.split(separator: " ")
        let series = String(parts.first ?? "")
        let value = String(parts.last ?? "")
        let name = String(series.prefix { $0 != "{" })
        let labels = series.dropFirst(name.count).dropFirst().dropLast()
        let labelPairs = labels.split(separator: ",").map { pair -> String in
            let sides = pair.split(separator: "=", maxSplits: 1)
            return "\(sides[0]): \(sides.count > 1 ? sides[1] : "\"\"")"
        }
        let expected = (["severity: critical", "job: authlog", "instance: a"] + labelPairs).joined(separator: ", ")
        let cases = """
            rule_files: [alerts.yml]
            evaluation_interval: 1m
            tests:
              - interval: 1m
                input_series:
                  - series: '\(name){job="authlog",instance="a",\(labels)}'
                    values: '\(value)x10'
                alert_rule_test:
                  - eval_time: 2m
                    alertname: \(alert)
                    exp_alerts:
                      - exp_labels: {\(expected)}
            """
        return try await Self.test(cases: cases)
    }

    /// promtool's rule unit tests `cases` over a copy of deploy/alerts.yml without its annotations, so that the
    /// cases pin the alerts and their labels, not their wording.
    static func test(cases: String) async throws -> Promtool.Output {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authlog-alerts-" + UUID().uuidString
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = try String(contentsOf: Self.rulesFile, encoding: .utf8)
        try Self.withoutAnnotations(rules).write(
            to: directory.appendingPathComponent("alerts.yml"),
            atomically: true,
            encoding: .utf8
        )
        try cases.write(to: directory.appendingPathComponent("cases.yml"), atomically: true, encoding: .utf8)
        return try await Promtool.run(["test", "rules", directory.appendingPathComponent("cases.yml").path])
    }
}

// MARK: - Reading the rules and /metrics

extension Checkers.AlertRulesTests {
    /// Series Prometheus makes itself, not authlog.
    static let prometheusSeries: Set<String> = ["up"]

    /// PromQL's keywords and the functions the rules may call.
    static let promQLWords: Set<String> = [
        "sum", "min", "max", "avg", "count", "topk", "bottomk", "quantile", "stddev", "by", "without", "on",
        "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool", "rate", "irate",
        "increase", "delta", "histogram_quantile", "absent", "absent_over_time", "clamp_min", "clamp_max",
        "avg_over_time", "max_over_time", "min_over_time", "sum_over_time", "changes", "resets", "time", "vector",
        "scalar",
    ]

    struct UnknownWord: Error, CustomStringConvertible {
        var description: String
    }

    /// The metric names in the `expr:` values of a rules file (inline or a block scalar), leaving out label
    /// matchers, grouping labels, strings, ranges and PromQL's own words.
    /// - Throws: ``UnknownWord`` for a word that is neither a PromQL word nor a metric name.
    static func metricNames(inExpressionsOf rules: String) throws -> Set<String> {
        var expressions: [String] = []
        var blockIndent: Int?
        for line in rules.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if let current = blockIndent {
                if text.isEmpty || indent > current {
                    expressions.append(text)
                    continue
                }
                blockIndent = nil
            }
            guard text.hasPrefix("expr:") else { continue }
            let value = text.dropFirst("expr:".count).trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("|") || value.hasPrefix(">") {
                blockIndent = indent
            } else {
                expressions.append(value)
            }
        }
        var names: Set<String> = []
        for expression in expressions {
            let bare = expression.replacing(#/"(\\.|[^"\\])*"/#, with: "\"\"")
                .replacing(#/\{[^}]*\}/#, with: "")
                .replacing(#/\[[^\]]*\]/#, with: "")
                .replacing(#/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/#) { $0.output.1 }
            for match in bare.matches(of: #/\b[a-zA-Z_:][a-zA-Z0-9_:]*/#) {
                let word = String(match.output)
                if Self.promQLWords.contains(word) { continue }
                guard word.hasPrefix("authlog_") || Self.prometheusSeries.contains(word) else {
                    throw UnknownWord(description: "\(word) in \(expression)")
                }
                names.insert(word)
            }
        }
        return names
    }

    /// The series names a /metrics answer exports: each family of `# TYPE` (a histogram's `_bucket`, `_sum`
    /// and `_count` too) and each sample's name.
    static func exportedNames(_ text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { continue }
                let name = String(parts[2])
                names.insert(name)
                if parts[3] == "histogram" { names.formUnion(["_bucket", "_sum", "_count"].map { name + $0 }) }
            } else if !line.hasPrefix("#") {
                names.insert(String(line.prefix { $0 != "{" && $0 != " " }))
            }
        }
        return names
    }

    /// `rules` without the `annotations:` blocks.
    static func withoutAnnotations(_ rules: String) -> String {
        var kept: [Substring] = []
        var skipIndent: Int?
        for line in rules.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            if let current = skipIndent {
                if line.allSatisfy({ $0 == " " }) || indent > current { continue }
                skipIndent = nil
            }
            if line.trimmingCharacters(in: .whitespaces) == "annotations:" {
                skipIndent = indent
                continue
            }
            kept.append(line)
        }
        return kept.joined(separator: "\n")
    }

    /// promtool rule unit tests (https://prometheus.io/docs/prometheus/latest/configuration/unit_testing_rules/)
    /// over alerts.yml in the same directory.
    static let ruleCases = """
        rule_files: [alerts.yml]
        evaluation_interval: 1m
        tests:
          # A first 503 (a new series) fires the AU-5 alert; 5 minutes later, without another, it is resolved.
          # Steady 200s fire nothing. The target down for 10 minutes fires AuthlogDown.
          - interval: 1m
            input_series:
              - series: 'authlog_http_requests_total{job="authlog",instance="a",method="POST",route="/v1/signin/{provider}",status="503"}'
                values: '_x10 1x30'
              - series: 'authlog_http_requests_total{job="authlog",instance="a",method="POST",route="/v1/signin/{provider}",status="200"}'
                values: '0+5x40'
              - series: 'up{job="authlog",instance="a"}'
                values: '1x20 0x10'
            alert_rule_test:
              - eval_time: 9m
                alertname: AuthlogAuditWriteFailing
                exp_alerts: []
              - eval_time: 12m
                alertname: AuthlogAuditWriteFailing
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-5, job: authlog, instance: a}
              - eval_time: 30m
                alertname: AuthlogAuditWriteFailing
                exp_alerts: []
              - eval_time: 12m
                alertname: AuthlogDatabaseUnavailable
                exp_alerts: []
              - eval_time: 19m
                alertname: AuthlogDown
                exp_alerts: []
              - eval_time: 30m
                alertname: AuthlogDown
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-5, job: authlog, instance: a}
          # 503s keep coming: PostgreSQL is unreachable.
          - interval: 1m
            input_series:
              - series: 'authlog_http_requests_total{job="authlog",instance="a",method="POST",route="/v1/token/refresh",status="503"}'
                values: '0x10 0+3x20'
            alert_rule_test:
              - eval_time: 20m
                alertname: AuthlogDatabaseUnavailable
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-5, job: authlog, instance: a}
          # apple's failures jump from 1 to 10 a minute; google's stay at 1 a minute.
          - interval: 1m
            input_series:
              - series: 'authlog_signins_total{job="authlog",provider="apple",outcome="failure"}'
                values: '0+1x60 60+10x30'
              - series: 'authlog_signins_total{job="authlog",provider="google",outcome="failure"}'
                values: '0+1x90'
              - series: 'authlog_signins_total{job="authlog",provider="google",outcome="success"}'
                values: '0+100x90'
            alert_rule_test:
              - eval_time: 55m
                alertname: AuthlogFailedSigninBurst
                exp_alerts: []
              - eval_time: 80m
                alertname: AuthlogFailedSigninBurst
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, provider: apple}
          # 2 revocations an hour for 7 days, then 40 in an hour.
          - interval: 10m
            input_series:
              - series: 'authlog_events_appended_total{job="authlog",instance="a",type="session.revoked"}'
                values: '0+0.333333x1008 336+6.666667x6'
              - series: 'authlog_events_appended_total{job="authlog",instance="a",type="token.refreshed"}'
                values: '0+100x1014'
            alert_rule_test:
              - eval_time: 7d
                alertname: AuthlogRevocationSpike
                exp_alerts: []
              - eval_time: 169h
                alertname: AuthlogRevocationSpike
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog}
          # From minute 10: 2 refused refreshes a minute, and google's key set cannot be fetched once a minute.
          # At minute 30 one rotated refresh token comes back.
          - interval: 1m
            input_series:
              - series: 'authlog_events_appended_total{job="authlog",instance="a",type="token.reuse_detected"}'
                values: '0x30 1x20'
              - series: 'authlog_http_requests_total{job="authlog",instance="a",method="POST",route="/v1/token/refresh",status="401"}'
                values: '0x10 0+2x40'
              - series: 'authlog_http_requests_total{job="authlog",instance="a",method="POST",route="/v1/token/refresh",status="200"}'
                values: '0+50x50'
              - series: 'authlog_jwks_fetch_failures_total{job="authlog",instance="a",provider="google"}'
                values: '0x10 0+1x40'
              - series: 'authlog_jwks_fetch_failures_total{job="authlog",instance="a",provider="apple"}'
                values: '0x50'
            alert_rule_test:
              - eval_time: 10m
                alertname: AuthlogRefreshRefusalsBurst
                exp_alerts: []
              - eval_time: 35m
                alertname: AuthlogRefreshRefusalsBurst
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog}
              - eval_time: 25m
                alertname: AuthlogRefreshTokenReuse
                exp_alerts: []
              - eval_time: 35m
                alertname: AuthlogRefreshTokenReuse
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog}
              - eval_time: 50m
                alertname: AuthlogRefreshTokenReuse
                exp_alerts: []
              - eval_time: 20m
                alertname: AuthlogKeySetFetchFailing
                exp_alerts: []
              - eval_time: 45m
                alertname: AuthlogKeySetFetchFailing
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, provider: google}
          # Signing fails from minute 10 (one attempt a second; the gauge counts them in a row) until a checkpoint is
          # signed at minute 20.
          - interval: 1m
            input_series:
              - series: 'authlog_checkpoint_signing_failures{job="authlog",instance="a"}'
                values: '0x10 60 120 180 240 300 360 420 480 540 600 0x10'
            alert_rule_test:
              - eval_time: 5m
                alertname: AuthlogCheckpointSigningFailing
                exp_alerts: []
              - eval_time: 15m
                alertname: AuthlogCheckpointSigningFailing
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-9, job: authlog, instance: a}
              - eval_time: 25m
                alertname: AuthlogCheckpointSigningFailing
                exp_alerts: []
          # The oldest queued event waits from minute 10 (a second more each second) until minute 20, as both
          # processes see it: one alert.
          - interval: 1m
            input_series:
              - series: 'authlog_log_oldest_unsealed_seconds{job="authlog",instance="a"}'
                values: '0x10 0+60x10 0x10'
              - series: 'authlog_log_oldest_unsealed_seconds{job="authlog",instance="b"}'
                values: '0x10 0+60x10 0x10'
            alert_rule_test:
              - eval_time: 5m
                alertname: AuthlogSealingStalled
                exp_alerts: []
              - eval_time: 15m
                alertname: AuthlogSealingStalled
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-9, job: authlog}
              - eval_time: 25m
                alertname: AuthlogSealingStalled
                exp_alerts: []
          # The signer refuses from minute 10 to 20; two forged rows are refused at minute 30.
          - interval: 1m
            input_series:
              - series: 'authlog_checkpoint_signer_refusing{job="authlog",instance="a"}'
                values: '0x10 1x10 0x20'
              - series: 'authlog_events_refused_total{job="authlog",instance="a"}'
                values: '0x30 2x20'
            alert_rule_test:
              - eval_time: 5m
                alertname: AuthlogCheckpointSignerRefusing
                exp_alerts: []
              - eval_time: 15m
                alertname: AuthlogCheckpointSignerRefusing
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-9, job: authlog, instance: a}
              - eval_time: 25m
                alertname: AuthlogCheckpointSignerRefusing
                exp_alerts: []
              - eval_time: 25m
                alertname: AuthlogForgedEventsRefused
                exp_alerts: []
              - eval_time: 32m
                alertname: AuthlogForgedEventsRefused
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-9, job: authlog, instance: a}
              - eval_time: 45m
                alertname: AuthlogForgedEventsRefused
                exp_alerts: []
          # Checkpoints signed but not witnessed for 30 minutes fire (after 5 more); an idle log whose last
          # checkpoint is witnessed, however long ago, does not. A witness alarm fires at once.
          - interval: 1m
            input_series:
              - series: 'authlog_log_witnessed_age_seconds{job="authlog",instance="a"}'
                values: '0+60x60'
              - series: 'authlog_log_checkpoint_tree_size{job="authlog",instance="a"}'
                values: '100+10x60'
              - series: 'authlog_log_witnessed_tree_size{job="authlog",instance="a"}'
                values: '100x60'
              - series: 'authlog_log_witnessed_age_seconds{job="authlog",instance="idle"}'
                values: '0+60x60'
              - series: 'authlog_log_checkpoint_tree_size{job="authlog",instance="idle"}'
                values: '100x60'
              - series: 'authlog_log_witnessed_tree_size{job="authlog",instance="idle"}'
                values: '100x60'
              - series: 'authlog_witness_alarm{job="authlog",instance="a",witness="w1"}'
                values: '0x10 1x10'
              - series: 'authlog_witness_alarm{job="authlog",instance="a",witness="w2"}'
                values: '0x20'
            alert_rule_test:
              - eval_time: 30m
                alertname: AuthlogCheckpointNotWitnessed
                exp_alerts: []
              - eval_time: 40m
                alertname: AuthlogCheckpointNotWitnessed
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, instance: a}
              - eval_time: 5m
                alertname: AuthlogWitnessAlarm
                exp_alerts: []
              - eval_time: 15m
                alertname: AuthlogWitnessAlarm
                exp_alerts:
                  - exp_labels: {severity: critical, job: authlog, instance: a, witness: w1}
          # A sink failing from minute 5 (its failures climbing) fires after 10 more minutes at five or more; one
          # that recovers resets to 0 and does not. A sink 20,000 events behind for 15 minutes fires the lag alert.
          # Both processes (a holds the lease, b waits for it) show the sink's row as the database has it: one
          # alert per sink, not one per process.
          - interval: 1m
            input_series:
              - series: 'authlog_sink_consecutive_failures{job="authlog",instance="a",sink="siem"}'
                values: '0x5 1+1x30'
              - series: 'authlog_sink_consecutive_failures{job="authlog",instance="b",sink="siem"}'
                values: '0x5 1+1x30'
              - series: 'authlog_sink_consecutive_failures{job="authlog",instance="a",sink="archive"}'
                values: '0x5 1+1x6 0x20'
              - series: 'authlog_sink_lag_events{job="authlog",instance="a",sink="siem"}'
                values: '0x5 20000x30'
              - series: 'authlog_sink_lag_events{job="authlog",instance="b",sink="siem"}'
                values: '0x5 20000x30'
            alert_rule_test:
              - eval_time: 12m
                alertname: AuthlogSinkFailing
                exp_alerts: []
              - eval_time: 20m
                alertname: AuthlogSinkFailing
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, sink: siem}
              - eval_time: 15m
                alertname: AuthlogSinkLagging
                exp_alerts: []
              - eval_time: 25m
                alertname: AuthlogSinkLagging
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, sink: siem}
          # A receiver down while events keep coming: its lag is the head against its cursor (the cursor stands
          # still, the head grows by 100 a minute past 10,000), so the lag alert fires too, while the sink that
          # keeps delivering (lag 0) fires nothing.
          - interval: 1m
            input_series:
              - series: 'authlog_sink_lag_events{job="authlog",instance="a",sink="siem"}'
                values: '0x5 9000+100x40'
              - series: 'authlog_sink_consecutive_failures{job="authlog",instance="a",sink="siem"}'
                values: '0x5 1+1x40'
              - series: 'authlog_sink_lag_events{job="authlog",instance="a",sink="archive"}'
                values: '0x45'
              - series: 'authlog_sink_consecutive_failures{job="authlog",instance="a",sink="archive"}'
                values: '0x45'
            alert_rule_test:
              - eval_time: 25m
                alertname: AuthlogSinkLagging
                exp_alerts: []
              - eval_time: 35m
                alertname: AuthlogSinkLagging
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, sink: siem}
              - eval_time: 35m
                alertname: AuthlogSinkFailing
                exp_alerts:
                  - exp_labels: {severity: warning, job: authlog, sink: siem}
          # PostgreSQL refuses the writes from minute 5 to 15 (a full disk): the gauge fires after a minute and
          # clears with the writes. A blip shorter than a minute does not page.
          - interval: 1m
            input_series:
              - series: 'authlog_writes_failing{job="authlog",instance="a"}'
                values: '0x5 1x10 0x10'
              - series: 'authlog_writes_failing{job="authlog",instance="b"}'
                values: '0x5 1 0x20'
            alert_rule_test:
              - eval_time: 5m
                alertname: AuthlogWritesFailing
                exp_alerts: []
              - eval_time: 8m
                alertname: AuthlogWritesFailing
                exp_alerts:
                  - exp_labels: {severity: critical, compliance: AU-5, job: authlog, instance: a}
              - eval_time: 20m
                alertname: AuthlogWritesFailing
                exp_alerts: []
        """
}

/// Prometheus's promtool, from PATH.
enum Promtool {
    static var path: String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return directories.map { "\($0)/promtool" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether promtool is on PATH; under `CI=true` the tests run regardless and fail without it.
    static var isAvailable: Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        guard Self.path != nil else {
            print("skipping the promtool checks of deploy/alerts.yml: promtool is not on PATH (Debian: prometheus)")
            return false
        }
        return true
    }

    struct Output {
        var status: Int32
        var text: String
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "promtool is not on PATH, and CI=true requires the checks of deploy/alerts.yml (Debian: prometheus)"
        }
    }

    /// Runs promtool with `arguments`; stdout and stderr together.
    /// - Throws: when promtool is missing or cannot be started.
    static func run(_ arguments: [String]) async throws -> Output {
        guard let path = Self.path else { throw Missing() }
        let output = try await ChildProcess.run(path, arguments, mergingErrors: true)
        return Output(status: output.status, text: output.stdout)
    }
}

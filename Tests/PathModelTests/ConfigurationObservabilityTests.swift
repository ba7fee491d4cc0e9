// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// `[history] entries` and `[metrics] textfile`: accepted values, and a clear error for the rest.
@Suite struct ConfigurationObservabilityTests {
    @Test func readsHistoryAndMetrics() throws {
        let configuration = try Configuration.parse(
            """
            [history]
            entries = 250
            [metrics]
            textfile = /var/lib/prometheus/node-exporter/pathmond.prom
            """)
        #expect(configuration.historyEntries == 250)
        #expect(configuration.metricsTextfile == "/var/lib/prometheus/node-exporter/pathmond.prom")
        #expect(configuration.warnings.isEmpty)
    }

    @Test func absentSectionsMeanDefaults() throws {
        let configuration = try Configuration.parse("[policy]\nadmin-group = adm\n")
        #expect(configuration.historyEntries == nil)
        #expect(configuration.metricsTextfile == nil)
    }

    @Test(arguments: ["0", "-1", "100001", "ten", "1e3", "99999999999999999999", "1 000"])
    func refusesHistorySizesOutOfRange(_ value: String) {
        #expect(throws: ConfigurationError.self) { try Configuration.parse("[history]\nentries = \(value)\n") }
        do {
            _ = try Configuration.parse("[history]\nentries = \(value)\n")
        } catch {
            #expect(error.line == 2)
            #expect(error.description.contains("a number from 1 to 100000"))
        }
    }

    @Test(arguments: ["pathmond.prom", "/tmp/pathmond.txt", "/tmp/.prom", "/tmp/../etc/x.prom", "/tmp/", ""])
    func refusesTextfilesThatNodeExporterWouldNotRead(_ value: String) {
        #expect(throws: ConfigurationError.self) { try Configuration.parse("[metrics]\ntextfile = \(value)\n") }
    }

    @Test func warnsAboutUnknownKeysAndRefusesDuplicates() throws {
        let configuration = try Configuration.parse("[history]\nsize = 3\n[metrics]\nport = 9100\n")
        #expect(configuration.warnings.count == 2)
        #expect(throws: ConfigurationError.self) { try Configuration.parse("[history]\nentries = 3\nentries = 4\n") }
    }
}

/// `[discretionary] settle` and `grace`: durations, the defaults where unset, and errors that name the line.
@Suite struct DiscretionaryConfigurationTests {
    @Test func readsSettleAndGrace() throws {
        let configuration = try Configuration.parse("[discretionary]\nsettle = 500ms\ngrace = 2min\n")
        #expect(configuration.systemPolicyTiming == .init(settle: .milliseconds(500), grace: .seconds(120)))
        #expect(configuration.warnings.isEmpty)
    }

    @Test func absentMeansDefaults() throws {
        #expect(try Configuration.parse("").systemPolicyTiming == .standard)
        #expect(try Configuration.parse("[discretionary]\ngrace = 1s\n").systemPolicyTiming.settle == .seconds(3))
    }

    @Test(arguments: ["soon", "-3s", "2d", "1.5s", ""])
    func refusesBadDurations(_ value: String) {
        do {
            _ = try Configuration.parse("[discretionary]\nsettle = \(value)\n")
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func refusesRepeatsAndWarnsOfUnknownKeys() throws {
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "grace", firstLine: 2)) {
            try Configuration.parse("[discretionary]\ngrace = 1s\ngrace = 2s\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 3, name: "discretionary", firstLine: 1)) {
            try Configuration.parse("[discretionary]\ngrace = 1s\n[discretionary]\n")
        }
        let configuration = try Configuration.parse("[discretionary]\nsetle = 1s\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: "discretionary", key: "setle")])
    }
}

/// `[usage] interval`: a duration from 1 s to 1 h; absent, the daemon's default.
@Suite struct ConfigurationUsageTests {
    @Test func readsTheInterval() throws {
        #expect(try Configuration.parse("[usage]\ninterval = 5min\n").usageInterval == .seconds(300))
        #expect(try Configuration.parse("[usage]\ninterval = 1s\n").usageInterval == .seconds(1))
        #expect(try Configuration.parse("[policy]\nadmin-group = adm\n").usageInterval == nil)
    }

    @Test(arguments: ["0", "500ms", "2h", "soon", ""])
    func refusesIntervalsOutOfRange(_ value: String) {
        #expect(throws: ConfigurationError.self) { try Configuration.parse("[usage]\ninterval = \(value)\n") }
    }

    @Test func refusesRepeatsAndWarnsOfUnknownKeys() throws {
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "interval", firstLine: 2)) {
            try Configuration.parse("[usage]\ninterval = 1s\ninterval = 2s\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 3, name: "usage", firstLine: 1)) {
            try Configuration.parse("[usage]\ninterval = 1s\n[usage]\n")
        }
        let configuration = try Configuration.parse("[usage]\nintervall = 1s\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: "usage", key: "intervall")])
    }
}

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

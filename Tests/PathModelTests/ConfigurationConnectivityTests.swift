// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// `[connectivity]`: pathmond's own connectivity check. On by default unless NetworkManager's runs, asking Debian's
/// server what network-manager-config-connectivity-debian asks; every key checked as it is read.
@Suite struct ConfigurationConnectivityTests {
    @Test func theDefaultsAreDebiansCheckEveryFiveMinutes() throws {
        for configuration in [
            try Configuration.parse(""), try Configuration.parse("[connectivity]\n"), Configuration(),
        ] {
            let settings = configuration.connectivity
            #expect(settings.enabled == nil)
            #expect(settings.uri == "http://network-test.debian.org/nm")
            #expect(settings.response == "NetworkManager is online")
            #expect(settings.interval == .seconds(300))
        }
    }

    @Test func notSetItRunsOnlyWhileNetworkManagersCheckDoesNot() throws {
        let unset = ConnectivityCheckSettings()
        #expect(unset.runs(besideNetworkManager: false))
        #expect(!unset.runs(besideNetworkManager: true))
        let on = try Configuration.parse("[connectivity]\nenabled = yes\n").connectivity
        #expect(on.runs(besideNetworkManager: true) && on.runs(besideNetworkManager: false))
        let off = try Configuration.parse("[connectivity]\nenabled = no\n").connectivity
        #expect(!off.runs(besideNetworkManager: true) && !off.runs(besideNetworkManager: false))
    }

    @Test func readsEveryKey() throws {
        let configuration = try Configuration.parse(
            """
            [connectivity]
            uri = http://10.0.0.1:8080/generate_204
            response =
            interval = 2min
            enabled = yes
            """)
        let settings = configuration.connectivity
        #expect(
            settings
                == ConnectivityCheckSettings(
                    enabled: true, uri: "http://10.0.0.1:8080/generate_204", response: "", interval: .seconds(120)))
        #expect(configuration.warnings.isEmpty)
        let text = try Configuration.parse("[connectivity]\nresponse = Hello, world\n").connectivity
        #expect(text.response == "Hello, world")
    }

    @Test(arguments: [
        "ftp://example.org/", "example.org/nm", "http://", "http://a b/", "https://\u{e9}.example/",
        "http://" + String(repeating: "a", count: 2_048),
    ])
    func refusesAURIThatCannotBeAsked(_ uri: String) {
        #expect(throws: ConfigurationError.self) { try Configuration.parse("[connectivity]\nuri = \(uri)\n") }
        #expect(!ConnectivityCheckSettings.isValidURI(uri))
    }

    @Test(arguments: ["0s", "500ms", "2d", "often", "-5s"])
    func refusesAnIntervalOutOfBounds(_ interval: String) {
        #expect(
            throws: ConfigurationError.invalidValue(
                line: 2, key: "interval", value: interval, expected: "a duration from 1s to 1d, e.g. 300s or 5min")
        ) {
            try Configuration.parse("[connectivity]\ninterval = \(interval)\n")
        }
    }

    @Test func refusesRepeatsEmptyValuesAndALongResponse() {
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "uri", firstLine: 2)) {
            try Configuration.parse("[connectivity]\nuri = http://a/\nuri = http://b/\n")
        }
        #expect(throws: ConfigurationError.missingValue(line: 2, key: "uri")) {
            try Configuration.parse("[connectivity]\nuri =\n")
        }
        #expect(throws: ConfigurationError.missingValue(line: 2, key: "interval")) {
            try Configuration.parse("[connectivity]\ninterval =\n")
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[connectivity]\nresponse = \(String(repeating: "x", count: 1_025))\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 2, name: "connectivity", firstLine: 1)) {
            try Configuration.parse("[connectivity]\n[connectivity]\n")
        }
    }

    @Test func anUnknownKeyIsAWarning() throws {
        let configuration = try Configuration.parse("[connectivity]\ntimeout = 5s\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: "connectivity", key: "timeout")])
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// `[networkmanager] write-metered`: off unless the file says so, a boolean, once.
@Suite struct ConfigurationNetworkManagerTests {
    @Test func offByDefault() throws {
        #expect(try Configuration.parse("").networkManagerWriteMetered == false)
        #expect(try Configuration.parse("[networkmanager]\n").networkManagerWriteMetered == false)
    }

    @Test(arguments: [("true", true), ("Yes", true), ("1", true), ("false", false), ("no", false), ("0", false)])
    func readsTheBoolean(value: String, expected: Bool) throws {
        let configuration = try Configuration.parse("[networkmanager]\nwrite-metered = \(value)\n")
        #expect(configuration.networkManagerWriteMetered == expected)
        #expect(configuration.warnings.isEmpty)
    }

    @Test func refusesWhatIsNotABooleanAndASecondSection() {
        #expect(throws: ConfigurationError.invalidBoolean(line: 2, key: "write-metered", value: "maybe")) {
            try Configuration.parse("[networkmanager]\nwrite-metered = maybe\n")
        }
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "write-metered", firstLine: 2)) {
            try Configuration.parse("[networkmanager]\nwrite-metered = yes\nwrite-metered = no\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 2, name: "networkmanager", firstLine: 1)) {
            try Configuration.parse("[networkmanager]\n[networkmanager]\n")
        }
    }

    @Test func anUnknownKeyIsAWarning() throws {
        let configuration = try Configuration.parse("[networkmanager]\nwrite-dns = yes\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: "networkmanager", key: "write-dns")])
    }
}

/// `[captive-portal] check-api`: off unless the file says so (it sends a request of pathmond's own), a boolean, once.
@Suite struct ConfigurationCaptivePortalTests {
    @Test func offByDefault() throws {
        #expect(try Configuration.parse("").captivePortalCheckAPI == false)
        #expect(try Configuration.parse("[captive-portal]\n").captivePortalCheckAPI == false)
    }

    @Test(arguments: [("true", true), ("YES", true), ("1", true), ("false", false), ("No", false), ("0", false)])
    func readsTheBoolean(value: String, expected: Bool) throws {
        let configuration = try Configuration.parse("[captive-portal]\ncheck-api = \(value)\n")
        #expect(configuration.captivePortalCheckAPI == expected)
        #expect(configuration.warnings.isEmpty)
    }

    @Test func refusesWhatIsNotABooleanAndASecondSection() {
        #expect(throws: ConfigurationError.invalidBoolean(line: 2, key: "check-api", value: "sometimes")) {
            try Configuration.parse("[captive-portal]\ncheck-api = sometimes\n")
        }
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "check-api", firstLine: 2)) {
            try Configuration.parse("[captive-portal]\ncheck-api = yes\ncheck-api = no\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 2, name: "captive-portal", firstLine: 1)) {
            try Configuration.parse("[captive-portal]\n[captive-portal]\n")
        }
        #expect(throws: ConfigurationError.missingValue(line: 2, key: "check-api")) {
            try Configuration.parse("[captive-portal]\ncheck-api =\n")
        }
    }

    @Test func anUnknownKeyIsAWarning() throws {
        let configuration = try Configuration.parse("[captive-portal]\ncheck-http = yes\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: "captive-portal", key: "check-http")])
    }
}

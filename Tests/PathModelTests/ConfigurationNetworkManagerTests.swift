// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The sections of one boolean key, each a boolean, once: `[networkmanager] write-metered` (on unless the file
/// turns it off: where NetworkManager runs, its Metered is where programs read metered) and `[captive-portal]
/// check-api` (off unless the file says so: it sends requests of pathmond's own).
@Suite struct ConfigurationNetworkManagerTests {
    /// A section, its key and the value it sets.
    struct BooleanSection: Sendable, CustomTestStringConvertible {
        let section: String
        let key: String
        let flag: @Sendable (Configuration) -> Bool
        /// What a file that does not set the key gets.
        let byDefault: Bool
        var testDescription: String { "[\(section)] \(key)" }
    }

    static let sections = [
        BooleanSection(
            section: "networkmanager", key: "write-metered", flag: { $0.networkManagerWriteMetered },
            byDefault: true),
        BooleanSection(
            section: "captive-portal", key: "check-api", flag: { $0.captivePortalCheckAPI },
            byDefault: false),
    ]

    @Test(arguments: sections) func theDefaultHoldsUntilTheFileSetsIt(_ section: BooleanSection) throws {
        #expect(try section.flag(Configuration.parse("")) == section.byDefault)
        #expect(try section.flag(Configuration.parse("[\(section.section)]\n")) == section.byDefault)
        #expect(section.flag(Configuration()) == section.byDefault, "the built-in configuration agrees")
    }

    @Test(
        arguments: sections,
        [("true", true), ("Yes", true), ("1", true), ("false", false), ("no", false), ("0", false)])
    func readsTheBoolean(_ section: BooleanSection, value: (String, Bool)) throws {
        let configuration = try Configuration.parse("[\(section.section)]\n\(section.key) = \(value.0)\n")
        #expect(section.flag(configuration) == value.1)
        #expect(configuration.warnings.isEmpty)
    }

    @Test(arguments: sections) func refusesWhatIsNotABooleanAndASecondSection(_ section: BooleanSection) {
        let (name, key) = (section.section, section.key)
        #expect(throws: ConfigurationError.invalidBoolean(line: 2, key: key, value: "maybe")) {
            try Configuration.parse("[\(name)]\n\(key) = maybe\n")
        }
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: key, firstLine: 2)) {
            try Configuration.parse("[\(name)]\n\(key) = yes\n\(key) = no\n")
        }
        #expect(throws: ConfigurationError.missingValue(line: 2, key: key)) {
            try Configuration.parse("[\(name)]\n\(key) =\n")
        }
        #expect(throws: ConfigurationError.duplicateSection(line: 2, name: name, firstLine: 1)) {
            try Configuration.parse("[\(name)]\n[\(name)]\n")
        }
    }

    @Test(arguments: sections) func anUnknownKeyIsAWarning(_ section: BooleanSection) throws {
        let configuration = try Configuration.parse("[\(section.section)]\nwrite-dns = yes\n")
        #expect(configuration.warnings == [.unknownKey(line: 2, section: section.section, key: "write-dns")])
        #expect(section.flag(configuration) == section.byDefault)
    }

    @Test func theSectionsAreIndependent() throws {
        let configuration = try Configuration.parse(
            "[captive-portal]\ncheck-api = yes\n[networkmanager]\nwrite-metered = no\n")
        #expect(configuration.captivePortalCheckAPI && !configuration.networkManagerWriteMetered)
        let other = try Configuration.parse("[networkmanager]\nwrite-metered = no\n")
        #expect(!other.captivePortalCheckAPI && !other.networkManagerWriteMetered)
    }
}

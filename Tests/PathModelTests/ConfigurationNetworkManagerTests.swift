// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The sections of one boolean key, each off unless the file says so, a boolean, once: `[networkmanager]
/// write-metered` and `[captive-portal] check-api` (which sends requests of pathmond's own).
@Suite struct ConfigurationNetworkManagerTests {
    /// A section, its key and the value it sets.
    struct BooleanSection: Sendable, CustomTestStringConvertible {
        let section: String
        let key: String
        let flag: @Sendable (Configuration) -> Bool
        var testDescription: String { "[\(section)] \(key)" }
    }

    static let sections = [
        BooleanSection(section: "networkmanager", key: "write-metered", flag: { $0.networkManagerWriteMetered }),
        BooleanSection(section: "captive-portal", key: "check-api", flag: { $0.captivePortalCheckAPI }),
    ]

    @Test(arguments: sections) func offByDefault(_ section: BooleanSection) throws {
        #expect(try section.flag(Configuration.parse("")) == false)
        #expect(try section.flag(Configuration.parse("[\(section.section)]\n")) == false)
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
        #expect(section.flag(configuration) == false)
    }

    @Test func theSectionsAreIndependent() throws {
        let configuration = try Configuration.parse("[captive-portal]\ncheck-api = yes\n")
        #expect(configuration.captivePortalCheckAPI && !configuration.networkManagerWriteMetered)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

@Suite struct ConfigurationTests {
    @Test func parsesTheDocumentedExample() throws {
        let text = """
            # comments with # or ;
            ; a whole-line comment
            [interface wwan-stick*]      # name or glob pattern
            type = cellular              # wired | wifi | cellular | other
            expensive = true             ; true/false/yes/no/1/0

            [interface enp0s31f6]
            expensive=no
            """
        let configuration = try Configuration.parse(text)
        #expect(
            configuration.overrides == [
                InterfaceOverride(pattern: "wwan-stick*", kind: .cellular, isExpensive: true),
                InterfaceOverride(pattern: "enp0s31f6", isExpensive: false),
            ])
        #expect(configuration.warnings.isEmpty)
    }

    @Test(arguments: ["", "\n\n", "# only a comment\n", "   \t\n; another\n"])
    func emptyTextIsTheBuiltInBehaviour(_ text: String) throws {
        #expect(try Configuration.parse(text) == Configuration())
    }

    @Test(arguments: [
        ("wired", InterfaceKind.wired), ("wifi", .wifi), ("cellular", .cellular), ("other", .other),
        ("Cellular", .cellular), ("WIFI", .wifi),
    ])
    func acceptsEveryType(_ value: String, _ kind: InterfaceKind) throws {
        let configuration = try Configuration.parse("[interface x]\ntype = \(value)\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "x", kind: kind)])
    }

    @Test(arguments: [
        ("true", true), ("yes", true), ("1", true), ("false", false), ("no", false), ("0", false),
        ("TRUE", true), ("No", false),
    ])
    func acceptsEveryBoolean(_ value: String, _ expected: Bool) throws {
        let configuration = try Configuration.parse("[interface x]\nexpensive = \(value)\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "x", isExpensive: expected)])
    }

    @Test func keepsSectionsInFileOrderEvenWhenTheyOverlap() throws {
        let configuration = try Configuration.parse(
            "[interface veth0]\ntype = wifi\n[interface veth*]\ntype = cellular\n[interface veth0]\nexpensive = 1\n")
        #expect(configuration.overrides.map(\.pattern) == ["veth0", "veth*", "veth0"])
        let veth = makeLink(5, "veth0", linkKind: "veth")
        #expect(configuration.classifier.classify(veth) == InterfaceClass(kind: .wifi, isExpensive: true))
    }

    @Test(arguments: [
        "[interface eth[01]]\ntype = wired\n", "[ interface   eth[01] ]\ntype = wired\n",
        "\u{FEFF}[interface eth[01]]\r\ntype = wired\r\n",
        "\t[interface eth[01]]   # trailing comment\n type=wired ;x\n",
    ])
    func toleratesLayout(_ text: String) throws {
        let configuration = try Configuration.parse(text)
        #expect(configuration.overrides == [InterfaceOverride(pattern: "eth[01]", kind: .wired)])
        #expect(configuration.overrides[0].matches("eth1"))
    }

    @Test func commentCharactersInsideANameAreKept() throws {
        let configuration = try Configuration.parse("[interface lab#1]\ntype = other\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "lab#1", kind: .other)])
    }

    @Test func unknownSectionsAreSkippedWithAWarning() throws {
        let text = """
            [routing]
            admin-group = pathmond
            anything = at all
            [interface wg0]
            type = other
            """
        let configuration = try Configuration.parse(text)
        #expect(configuration.overrides == [InterfaceOverride(pattern: "wg0", kind: .other)])
        #expect(configuration.warnings == [.unknownSection(line: 1, name: "routing")])
    }

    @Test func unknownKeysAreSkippedWithAWarning() throws {
        let configuration = try Configuration.parse("[interface wg0]\ntype = other\nconstrained = yes\nmtu=\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "wg0", kind: .other)])
        #expect(
            configuration.warnings == [
                .unknownKey(line: 3, section: "interface wg0", key: "constrained"),
                .unknownKey(line: 4, section: "interface wg0", key: "mtu"),
            ])
    }

    @Test func aSectionThatSetsNothingIsDroppedWithAWarning() throws {
        let configuration = try Configuration.parse("[interface eth0]\n# nothing yet\n[interface eth1]\ntype=wired\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "eth1", kind: .wired)])
        #expect(configuration.warnings == [.emptySection(line: 1, pattern: "eth0")])
    }

    @Test(arguments: [
        (ConfigurationWarning.unknownSection(line: 4, name: "routing"), 4, "line 4: unknown section [routing] ignored"),
        (
            .unknownKey(line: 2, section: "interface x", key: "mtu"), 2,
            "line 2: unknown key \"mtu\" in [interface x] ignored"
        ),
        (.emptySection(line: 9, pattern: "eth*"), 9, "line 9: [interface eth*] sets nothing"),
    ])
    func warningsSayWhereAndWhat(_ warning: ConfigurationWarning, _ line: Int, _ text: String) {
        #expect(warning.line == line)
        #expect(warning.description == text)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Every way a file is refused, each with the line it names.
@Suite struct ConfigurationErrorTests {
    @Test(arguments: [
        ("just words", ConfigurationError.malformedLine(line: 1, text: "just words")),
        ("[interface x]\ntype cellular", .malformedLine(line: 2, text: "type cellular")),
        ("[interface x]\n= cellular", .malformedLine(line: 2, text: "= cellular")),
        ("[interface x]\nex pensive = yes", .malformedLine(line: 2, text: "ex pensive = yes")),
        ("[interface x]\n\"type\" = wired", .malformedLine(line: 2, text: "\"type\" = wired")),
        ("\n\n[interface x", .malformedSectionHeader(line: 3, text: "[interface x")),
        ("[interface x]]x", .malformedSectionHeader(line: 1, text: "[interface x]]x")),
        ("[interface x]#c", .malformedSectionHeader(line: 1, text: "[interface x]#c")),
        ("[]", .malformedSectionHeader(line: 1, text: "[]")),
        ("[   ]", .malformedSectionHeader(line: 1, text: "[   ]")),
        ("[", .malformedSectionHeader(line: 1, text: "[")),
        ("# top\n[interface]\ntype = wired", .missingPattern(line: 2)),
        ("[interface   ]", .missingPattern(line: 1)),
        ("[interface eth0 eth1]", .extraPattern(line: 1, pattern: "eth1")),
        ("type = wired\n[interface x]", .keyOutsideSection(line: 1, key: "type")),
        ("[interface x]\ntype =", .missingValue(line: 2, key: "type")),
        ("[interface x]\nexpensive =   # nothing", .missingValue(line: 2, key: "expensive")),
        ("[interface x]\ntype = ethernet", .invalidInterfaceType(line: 2, value: "ethernet")),
        ("[interface x]\ntype = wi-fi", .invalidInterfaceType(line: 2, value: "wi-fi")),
        ("[interface x]\ntype = \"wired\"", .invalidInterfaceType(line: 2, value: "\"wired\"")),
        ("[interface x]\ntype = loopback", .loopbackNotAllowed(line: 2)),
        ("[interface x]\ntype = LOOPBACK", .loopbackNotAllowed(line: 2)),
        ("[interface x]\nexpensive = maybe", .invalidBoolean(line: 2, key: "expensive", value: "maybe")),
        ("[interface x]\nexpensive = on", .invalidBoolean(line: 2, key: "expensive", value: "on")),
        ("[interface x]\nexpensive = 2", .invalidBoolean(line: 2, key: "expensive", value: "2")),
        ("[interface x]\ntype = wifi\n\ntype = wired", .duplicateKey(line: 4, key: "type", firstLine: 2)),
        ("[interface x]\r\nexpensive = 1\r\nexpensive = 1", .duplicateKey(line: 3, key: "expensive", firstLine: 2)),
        ("[routing]\nnot an assignment", .malformedLine(line: 2, text: "not an assignment")),
        // A second single section would silently override the first.
        (
            "[history]\nentries = 5\n[metrics]\n[history]\nentries = 6",
            .duplicateSection(line: 4, name: "history", firstLine: 1)
        ),
        ("[metrics]\n\n[metrics]", .duplicateSection(line: 3, name: "metrics", firstLine: 1)),
        ("[policy]\n[interface x]\ntype = wifi\n[policy]", .duplicateSection(line: 4, name: "policy", firstLine: 1)),
        // Only "\n" ends a line: the number is the one an editor shows, whatever VT, FF, CR, NEL or U+2028 say.
        (
            "[interface x]\u{0B}\u{0C}\r\u{85}\u{2028}\u{2029}\ntype = ethernet",
            .invalidInterfaceType(line: 2, value: "ethernet")
        ),
        ("x\ry\n[interface x]\ntype = ethernet", .malformedLine(line: 1, text: "x\ry")),
    ])
    func refuses(_ text: String, _ expected: ConfigurationError) {
        #expect(throws: expected) { try Configuration.parse(text) }
    }

    @Test func theSameKeyInAnotherSectionIsNotADuplicate() throws {
        let configuration = try Configuration.parse("[interface a]\ntype = wifi\n[interface a]\ntype = wired\n")
        #expect(configuration.overrides.count == 2)
    }

    @Test func theErrorIsTyped() {
        // `throws(ConfigurationError)`: the catch needs no cast.
        do {
            _ = try Configuration.parse("[interface x]\ntype = loopback\n")
            Issue.record("a loopback type was accepted")
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test(arguments: [
        (ConfigurationError.malformedLine(line: 3, text: "oops"), "line 3: expected \"[section]\" or \"key = value\""),
        (.malformedSectionHeader(line: 1, text: "[x"), "line 1: malformed section header \"[x\""),
        (.missingPattern(line: 2), "line 2: [interface] needs an interface name or pattern"),
        (.extraPattern(line: 2, pattern: "b"), "line 2: unexpected \"b\""),
        (.keyOutsideSection(line: 1, key: "type"), "line 1: \"type\" is set before any section"),
        (.missingValue(line: 5, key: "type"), "line 5: \"type\" has no value"),
        (.invalidInterfaceType(line: 6, value: "lte"), "line 6: unknown interface type \"lte\""),
        (.loopbackNotAllowed(line: 7), "line 7: type = loopback is not allowed"),
        (.invalidBoolean(line: 8, key: "expensive", value: "on"), "line 8: \"expensive\" must be true, false"),
        (
            .duplicateKey(line: 9, key: "type", firstLine: 4),
            "line 9: \"type\" is already set in this section on line 4"
        ),
    ])
    func descriptionsNameTheLine(_ error: ConfigurationError, _ prefix: String) {
        #expect(error.description.hasPrefix(prefix))
        #expect(error.description.hasPrefix("line \(error.line): "))
    }
}

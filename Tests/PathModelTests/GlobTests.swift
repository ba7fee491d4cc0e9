// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

@Suite struct GlobTests {
    @Test(arguments: [
        // Literal names.
        ("eth0", "eth0", true), ("eth0", "eth1", false), ("eth0", "eth00", false), ("eth0", "eth", false),
        ("", "", true), ("", "x", false),
        // "*" matches any run, the empty one included.
        ("*", "", true), ("*", "wlp2s0", true), ("wl*", "wlp2s0", true), ("wl*", "wl", true), ("wl*", "ewl", false),
        ("*0", "wwan0", true), ("*0", "wwan1", false), ("w*n*0", "wwan0", true), ("w*n*0", "wwn", false),
        ("**", "abc", true), ("*a*a*a*b", "aaaaaaaaaaaaaab", true), ("*a*a*a*b", "aaaaaaaaaaaaaaa", false),
        // "?" matches exactly one character.
        ("eth?", "eth0", true), ("eth?", "eth", false), ("eth?", "eth10", false), ("??", "lo", true),
        // Bracket classes, ranges and negation.
        ("eth[01]", "eth0", true), ("eth[01]", "eth1", true), ("eth[01]", "eth2", false),
        ("wwan[0-9]", "wwan7", true), ("wwan[0-9]", "wwanx", false), ("[a-cx]", "b", true), ("[a-cx]", "x", true),
        ("[a-cx]", "d", false), ("eth[!0]", "eth1", true), ("eth[!0]", "eth0", false), ("eth[^0]", "eth0", false),
        ("[z-a]", "m", false), ("eth[0-9]*", "eth12", true), ("eth[0-9]*", "ethx", false),
        // "]" first in a class is literal, as is "-" first or last.
        ("[]]", "]", true), ("[]a]", "a", true), ("[!]]", "]", false), ("[!]]", "a", true),
        ("[a-]", "-", true), ("[-a]", "-", true), ("[a-]", "b", false),
        // An unterminated "[" is an ordinary character.
        ("eth[", "eth[", true), ("eth[0", "eth[0", true), ("eth[0", "eth0", false), ("[", "", false),
        // A class never matches the empty string.
        ("eth[0-9]", "eth", false),
    ])
    func matches(_ pattern: String, _ name: String, _ expected: Bool) {
        #expect(Glob(pattern).matches(name) == expected)
    }

    @Test func overridesMatchThroughTheGlob() {
        #expect(InterfaceOverride(pattern: "wwan-stick*").matches("wwan-stick3"))
        #expect(!InterfaceOverride(pattern: "wwan-stick*").matches("wwan0"))
    }
}

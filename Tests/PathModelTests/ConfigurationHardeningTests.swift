// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

// Configuration faults found by the adversarial review (issue 10), each of which the parser once accepted or
// echoed whole.

@Test(arguments: ["eth[", "eth[]", "eth[!]", "[", "wl[a-"])
func anUnclosedBracketInAPatternIsAnError(_ pattern: String) throws {
    let error = #expect(throws: ConfigurationError.self) {
        try Configuration.parse("[interface \(pattern)]\ntype = wired\n")
    }
    guard case .invalidPattern(let line, let reported, _) = error else {
        Issue.record("expected invalidPattern, got \(String(describing: error))")
        return
    }
    #expect(line == 1 && reported == pattern)
    #expect(error?.description.contains("never closed") == true)
}

@Test(arguments: ["eth[01]", "eth[]]", "eth[!]]", "wwan*", "a?[0-9]"])
func closedBracketClassesStillParse(_ pattern: String) throws {
    let configuration = try Configuration.parse("[interface \(pattern)]\ntype = wired\n")
    #expect(configuration.overrides.map(\.pattern) == [pattern])
}

@Test func aPatternLongerThanAnyInterfaceNameCouldNeedIsAnError() {
    let pattern = String(repeating: "*a", count: 200)
    #expect(throws: ConfigurationError.self) { try Configuration.parse("[interface \(pattern)]\ntype = wired\n") }
}

@Test func aHugeGarbageLineIsNotEchoedWhole() throws {
    let garbage = String(repeating: "x", count: 10_000_000)
    let error = #expect(throws: ConfigurationError.self) { try Configuration.parse("[interface eth0]\n" + garbage) }
    let description = try #require(error?.description)
    #expect(description.count < 300)
    #expect(description.hasPrefix("line 2: "))
    #expect(description.contains("9999936 more characters not shown"))
}

@Test func controlCharactersInAnEchoedLineAreEscaped() throws {
    let error = #expect(throws: ConfigurationError.self) {
        try Configuration.parse("[interface eth0]\nbad\u{1b}[2J\u{7}")
    }
    let description = try #require(error?.description)
    #expect(!description.unicodeScalars.contains { $0.value < 0x20 })
    #expect(description.contains("bad\\x1b[2J\\x07"))
}

/// Stars once made matching exponential (and each character a stack frame); now it is a product of lengths.
@Test func manyStarsMatchQuickly() {
    let pattern = String(repeating: "*a", count: 100) + "b"
    #expect(!Glob(pattern).matches(String(repeating: "a", count: 200)))
    #expect(Glob("*a*b").matches(String(repeating: "a", count: 200) + "b"))
}

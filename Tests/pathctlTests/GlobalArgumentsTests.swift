// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

/// networkctl's command-line conventions, as pathctl's normaliser rewrites them for the parser.
@Suite struct GlobalArgumentsTests {
    static let verbs = ["status", "monitor", "networks", "name"]

    func normalize(_ arguments: [String], terminal: Bool = false) -> GlobalArguments.Outcome {
        GlobalArguments.normalize(
            arguments, verbs: Self.verbs, defaultVerb: "status", standardOutputIsTerminal: terminal)
    }

    @Test func globalOptionsMoveAfterTheVerb() {
        #expect(normalize(["--socket", "/s", "networks"]) == .run(["networks", "--socket", "/s"]))
        #expect(
            normalize(["--socket=/s", "--no-legend", "networks", "-x"])
                == .run(["networks", "--socket=/s", "--no-legend", "-x"]))
    }

    @Test func noVerbMeansStatus() {
        #expect(normalize([]) == .run(["status"]))
        #expect(normalize(["--socket", "/s"]) == .run(["status", "--socket", "/s"]))
        #expect(normalize(["--require", "wifi"]) == .run(["status", "--require", "wifi"]))
    }

    @Test func anUnknownVerbIsAnError() {
        #expect(
            normalize(["stauts"])
                == .usageError("unknown verb 'stauts'; the verbs are: status, monitor, networks, name"))
        #expect(normalize(["--socket"]) == .usageError("--socket needs a value"))
    }

    @Test func bareJSONDependsOnTheTerminal() {
        #expect(normalize(["--json"]) == .run(["status", "--json=short"]))
        #expect(normalize(["-j", "networks"], terminal: true) == .run(["networks", "--json=pretty"]))
        #expect(normalize(["networks", "--json", "pretty"]) == .run(["networks", "--json=pretty"]))
        #expect(normalize(["networks", "--json=short"]) == .run(["networks", "--json=short"]))
        // A word after a bare --json that is not a mode stays an argument.
        #expect(normalize(["name", "--json", "eth0", "Office"]) == .run(["name", "--json=short", "eth0", "Office"]))
    }

    @Test func argumentsAfterDoubleDashAreLeftAlone() {
        #expect(normalize(["name", "--", "--json", "x"]) == .run(["name", "--", "--json", "x"]))
    }

    /// An empty word is an argument like any other (it once trapped the normaliser: `pathctl name eth0 ""`).
    @Test func anEmptyWordIsAnArgument() {
        #expect(normalize(["name", "eth0", ""]) == .run(["name", "eth0", ""]))
    }

    @Test func theParsersOwnOptionsPassUntouched() {
        for arguments in [
            ["--generate-completion-script", "bash"], ["--generate-manual"], ["---completion", "status", "--"],
            ["--help"], ["help", "name"], ["--version"],
        ] {
            #expect(normalize(arguments) == .run(arguments))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

/// The verbs' parser: getopt_long's rules on a verb's table, and usage errors that name what is wrong.
@Suite struct CommandLineParserTests {
    static let spec = VerbSpec(
        name: "test", abstract: "A verb for tests.",
        options: [
            .flag("quiet", short: "q", "Quiet."),
            .flag("follow", short: "f", "Follow."),
            .option("since", short: "s", value: "TIME", "Since."),
            .option("prohibit", "Not this.").with { $0.isRepeatable = true },
            .option("socket", "The socket."),
        ],
        arguments: [
            ArgumentSpec(name: "target", help: "Target."), ArgumentSpec(name: "name", help: "Name.", isOptional: true),
        ])

    func parse(_ words: [String], _ spec: VerbSpec = spec) throws(UsageError) -> ParsedArguments {
        try CommandLineParser.parse(words, as: spec)
    }

    func error(_ words: [String], _ spec: VerbSpec = spec) -> String? {
        do {
            _ = try parse(words, spec)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func longOptionsTakeTheNextWordOrWhatFollowsTheEqualsSign() throws {
        let parsed = try parse(["--socket", "/s", "eth0", "--since=-1h"])
        #expect(parsed.value("socket") == "/s" && parsed.value("since") == "-1h")
        #expect(parsed.positionals == ["eth0"])
    }

    @Test func aValueMayBeginWithADash() throws {
        #expect(try parse(["eth0", "--since", "-1h"]).value("since") == "-1h")
        #expect(try parse(["eth0", "-s", "-30min"]).value("since") == "-30min")
        #expect(try parse(["eth0", "-s-2d"]).value("since") == "-2d")
    }

    @Test func shortFlagsCluster() throws {
        let parsed = try parse(["-qf", "eth0"])
        #expect(parsed.flag("quiet") && parsed.flag("follow"))
        // A value option ends the cluster: the rest of the word is its value.
        let withValue = try parse(["-qs1h", "eth0"])
        #expect(withValue.flag("quiet") && withValue.value("since") == "1h")
    }

    @Test func repeatedOptionsKeepEveryValueAndTheLastCounts() throws {
        let parsed = try parse([
            "--prohibit", "wifi", "eth0", "--prohibit=cellular", "--socket", "/a", "--socket", "/b",
        ])
        #expect(parsed.values("prohibit") == ["wifi", "cellular"])
        #expect(parsed.value("socket") == "/b")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let parsed = try parse(["--", "--quiet", "-f"])
        #expect(parsed.positionals == ["--quiet", "-f"] && !parsed.flag("quiet"))
    }

    @Test func unknownOptionsAreNamed() {
        #expect(error(["eth0", "--bogus"]) == "unknown option '--bogus'")
        #expect(error(["eth0", "--bogus=1"]) == "unknown option '--bogus'")
        #expect(error(["eth0", "-x"]) == "unknown option '-x'")
        #expect(error(["eth0", "-qx"]) == "unknown option '-x'")
    }

    @Test func missingValuesAndArgumentsAreNamed() {
        #expect(error(["eth0", "--socket"]) == "--socket needs a value (<socket>)")
        #expect(error(["eth0", "-s"]) == "-s (--since) needs a value (<TIME>)")
        #expect(error([]) == "missing <target>")
        #expect(error(["a", "b", "c"]) == "unexpected argument 'c'")
        #expect(error(["eth0", "--quiet=yes"]) == "--quiet takes no value")
    }

    @Test func aRequiredOptionMustBeGiven() {
        let spec = VerbSpec(
            name: "run", abstract: "", options: [.option("while", "The condition.").with { $0.isRequired = true }])
        #expect(error([], spec) == "missing --while <while>")
        #expect(error(["--while", "online"], spec) == nil)
    }

    @Test func aPassthroughArgumentTakesEveryWordFromItsFirstOn() throws {
        let spec = VerbSpec(
            name: "exec", abstract: "", options: [.flag("stop", "Stop.")],
            arguments: [ArgumentSpec(name: "command", help: "", isPassthrough: true)])
        #expect(try parse(["--stop", "--", "sh", "-c", "exit 7"], spec).positionals == ["sh", "-c", "exit 7"])
        #expect(try parse(["sleep", "--stop"], spec).positionals == ["sleep", "--stop"])
        #expect(try parse(["--", "--stop"], spec).positionals == ["--stop"])
    }

    @Test func helpIsAnOptionAnywhereButInTheCommandItRuns() throws {
        #expect(try parse(["--help"]).wantsHelp, "no <target> needed for help")
        #expect(try parse(["eth0", "-qh"]).wantsHelp && parse(["--version"]).wantsVersion)
        #expect(try !parse(["--", "--help"]).wantsHelp)
        let exec = try CommandLineParser.parse(["--while", "online", "rsync", "--help"], as: Exec.spec)
        #expect(!exec.wantsHelp && exec.positionals == ["rsync", "--help"])
        #expect(try CommandLineParser.parse(["--help"], as: Exec.spec).wantsHelp, "no --while needed for help")
    }

    @Test func valuesAreCheckedByTheVerb() throws {
        #expect(throws: UsageError("--require takes wired, wifi, cellular or other, not 'loopback'")) {
            try PathOptions(try CommandLineParser.parse(["--require", "loopback"], as: Status.spec))
        }
        #expect(throws: UsageError("--timeout takes a number of seconds, 0 or more, not 'nan'")) {
            try Wait(try CommandLineParser.parse(["--timeout", "nan"], as: Wait.spec))
        }
        #expect(throws: UsageError("--lines takes a number, 0 or more, not '-1'")) {
            try Log(try CommandLineParser.parse(["--lines", "-1"], as: Log.spec))
        }
        let exec = try Exec(try CommandLineParser.parse(["--while", "online", "--", "true"], as: Exec.spec))
        #expect(exec.command == ["true"] && exec.condition == .online)
    }

    /// Every usage error ends pathctl with 64 (EX_USAGE), never 255 (which would fail an ExecCondition= unit).
    @Test(arguments: [
        ["check", "--bogus"], ["check", "--socket"], ["stauts"], ["name"], ["forget", "a", "b"], ["exec", "--stop"],
        ["set-expensive", "eth0", "--off", "--auto"], ["--generate-completion-script", "tcsh"], ["help", "nothing"],
    ])
    func usageErrorsExit64(arguments: [String]) {
        #expect(Pathctl.run(arguments) == .validationFailure)
    }

    @Test func everyVerbsOptionsParseAsDeclared() throws {
        for verb in Pathctl.specs {
            for option in verb.options {
                let required = verb.options.filter(\.isRequired).flatMap { ["--" + $0.long, "1"] }
                let words =
                    required + ["--" + option.long] + (option.isFlag ? [] : ["1"])
                    + (verb.arguments.isEmpty ? [] : ["x"])
                let parsed = try CommandLineParser.parse(words, as: verb)
                #expect(parsed.options[option.long] != nil, "\(verb.name) --\(option.long)")
            }
        }
    }
}

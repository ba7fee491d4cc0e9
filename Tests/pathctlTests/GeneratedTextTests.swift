// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

/// Help, man page and completion scripts come from the verbs' tables: each names every verb and option, and none
/// names a hidden one.
@Suite struct GeneratedTextTests {
    @Test func eachVerbsHelpListsItsOptionsAndArguments() {
        for verb in Pathctl.specs {
            let help = HelpText.verb(verb)
            #expect(help.hasPrefix("OVERVIEW: "), "\(verb.name)")
            #expect(help.contains("USAGE: pathctl \(verb.name)"), "\(verb.name)")
            for option in verb.options {
                #expect(help.contains("--" + option.long) != option.isHidden, "\(verb.name) --\(option.long)")
            }
            for argument in verb.arguments { #expect(help.contains("<\(argument.name)>"), "\(verb.name)") }
            #expect(help.contains("-h, --help") && help.contains("--version"))
        }
    }

    @Test func helpLinesFitEightyColumns() {
        for verb in Pathctl.specs {
            let lines = HelpText.verb(verb).split(separator: "\n").filter { !$0.hasPrefix("USAGE:") }
            #expect(lines.allSatisfy { $0.count <= HelpText.width }, "\(verb.name)")
        }
    }

    @Test func theRootHelpListsEveryVerb() {
        let help = HelpText.root(Pathctl.specs, defaultVerb: "status", abstract: "A.", discussion: "D.")
        for verb in Pathctl.specs { #expect(help.contains("  \(verb.name)"), "\(verb.name)") }
        #expect(help.contains("status (default)"))
    }

    /// Issue 42: users look for "metered"; the expensive flags and conditions say it.
    @Test func expensiveIsCalledMeteredWhereUsersLook() {
        #expect(HelpText.verb(Check.spec).contains("expensive (metered)"))
        #expect(HelpText.verb(Status.spec).contains("expensive (metered)"))
        #expect(HelpText.verb(SetExpensive.spec).contains("expensive (metered)"))
        #expect(ConditionFailure.expensive.message.contains("metered"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEveryVerbAndOption(shell: String) {
        let script =
            shell == "bash"
            ? BashCompletion.script(Pathctl.specs)
            : shell == "zsh" ? ZshCompletion.script(Pathctl.specs) : FishCompletion.script(Pathctl.specs)
        for verb in Pathctl.specs {
            #expect(script.contains(verb.name), "\(shell): \(verb.name)")
            for option in verb.options {
                let spelled = shell == "fish" ? "-l \(option.long)" : "--" + option.long
                #expect(script.contains(spelled) != option.isHidden, "\(shell): \(verb.name) --\(option.long)")
            }
            for (index, argument) in verb.arguments.enumerated() where argument.completion.callsBack {
                #expect(script.contains("---completion \(verb.name) -- positional@\(index)"), "\(shell): \(verb.name)")
            }
            for option in verb.options where option.completion.callsBack {
                #expect(script.contains("---completion \(verb.name) -- --\(option.long)"), "\(shell): \(verb.name)")
            }
        }
    }

    @Test func theManualPageDocumentsEveryVerbAndOption() {
        let page = ManualPage.render(Pathctl.specs, abstract: "A.", discussion: "D.", date: "November 28, 2026")
        #expect(page.hasPrefix(#".\""#) && page.contains(".Dd November 28, 2026\n.Dt PATHCTL 1"))
        #expect(page.contains(".Sh \"EXIT STATUS\"\n.Ex -std"), "the section scripts/finish-manual replaces")
        for verb in Pathctl.specs {
            #expect(page.contains(".It Em \(verb.name)\n"), "\(verb.name)")
            for option in verb.visibleOptions { #expect(page.contains("-\(option.long)"), "\(option.long)") }
        }
        #expect(!page.contains("dispatcher-socket"))
        // No line may start a roff request by accident.
        #expect(!page.split(separator: "\n").contains { $0.hasPrefix("'") })
    }

    @Test func callbacksAnswerWithTheValuesOfTheirArgument() {
        #expect(Completions.kind(of: "--require", in: Status.spec) == .values(PathOptions.kinds))
        #expect(Completions.kind(of: "positional@0", in: Name.spec) == .networkKeyOrInterface)
        #expect(Completions.kind(of: "positional@1", in: Name.spec) == CompletionKind.none)
        #expect(Completions.kind(of: "positional@9", in: Name.spec) == nil)
        #expect(Completions.kind(of: "--bogus", in: Name.spec) == nil)
    }
}

@Suite struct VerbNameTests {
    /// The names a run looks its verb up by are the tables' own, in the same order.
    @Test func theVerbNamesAreTheTables() {
        #expect(Pathctl.verbNames == Pathctl.specs.map(\.name))
        for name in Pathctl.verbNames { #expect(Pathctl.verb(named: name)?.spec.name == name) }
        #expect(Pathctl.verb(named: "help") == nil)
    }
}

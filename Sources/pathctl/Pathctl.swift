import PathProtocol
// SPDX-License-Identifier: Apache-2.0
import PathmondClient
import ProgramArguments

#if canImport(Glibc)
    import Glibc
#endif

/// pathctl: look at the network path pathmond serves.
@main
enum Pathctl {
    /// Every verb; a new one (say `log`) is added here and nowhere else: help, the man page, the completion
    /// scripts, the verb list of errors and the argument normalisation read it.
    static var verbs: [any Verb.Type] {
        [
            Status.self, Monitor.self, Check.self, Wait.self, SetConstrained.self, SetUltraConstrained.self,
            SetExpensive.self, Networks.self, Name.self, Forget.self, Log.self, Exec.self, Deferred.self, Usage.self,
            SetLimit.self,
        ]
    }

    /// The verbs' names, in `verbs`' order (a test holds them to the tables): what every run needs to find its verb,
    /// without building the thirteen tables (a third of a million instructions, `exec`'s help text alone half).
    static let verbNames = [
        "status", "monitor", "check", "wait", "set-constrained", "set-ultra-constrained", "set-expensive", "networks",
        "name", "forget", "log", "exec", "deferred", "usage", "set-limit",
    ]

    /// The verb of that name.
    static func verb(named name: String) -> (any Verb.Type)? {
        verbNames.firstIndex(of: name).map { verbs[$0] }
    }

    static let version = "0.1.0"
    static let abstract = "Show and follow the network path served by pathmond."
    static let discussion = """
        Global options (--socket, --json, --no-legend, --no-pager) may come before or after the verb; \
        without a verb pathctl runs 'status'. $PATHMOND_SOCKET names the socket when --socket is not given.
        """

    static var specs: [VerbSpec] { verbs.map { $0.spec } }

    /// Normalises the command line first (see `GlobalArguments`), then parses and runs the verb.
    static func main() {
        // A gate that cannot know what it was asked must not answer: 0 would run the unit it guards.
        guard let arguments = ProgramArguments.afterName() else {
            printError("pathctl: no command line to read (started with an empty argv): refusing to guess one")
            exit(ExitCode.validationFailure.rawValue)
        }
        let outcome = GlobalArguments.normalize(
            arguments, verbs: verbNames, defaultVerb: "status",
            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
        switch outcome {
        case .run(let arguments):
            exit(run(arguments).rawValue)
        case .usageError(let message):
            exit(usageError(message, verb: nil).rawValue)
        }
    }

    /// Runs normalised arguments: the root's own options, or a verb.
    static func run(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first else { return run(["status"]) }
        switch first {
        case "-h", "--help":
            print(HelpText.root(specs, defaultVerb: Status.spec.name, abstract: abstract, discussion: discussion))
            return .success
        case "--version":
            print(version)
            return .success
        case "help":
            return help(arguments.dropFirst().first)
        case "--generate-completion-script":
            return completionScript(arguments.dropFirst().first)
        case "--generate-manual":
            // The page's date: the packaging's, else none (mdoc then prints the date it is formatted).
            let date = arguments.dropFirst().first ?? "$Mdocdate$"
            print(ManualPage.render(specs, abstract: abstract, discussion: discussion, date: date), terminator: "")
            return .success
        case "---completion":
            return Completions.answer(Array(arguments.dropFirst()), verbs: specs)
        default:
            guard let verb = verb(named: first) else {
                return usageError(unknownVerb(first), verb: nil)
            }
            return run(verb, Array(arguments.dropFirst()))
        }
    }

    static func run(_ verb: any Verb.Type, _ words: [String]) -> ExitCode {
        let command: any Verb
        do {
            let parsed = try CommandLineParser.parse(words, as: verb.spec)
            // Help and version win wherever they stand among the options, as they did.
            if parsed.wantsHelp {
                print(HelpText.verb(verb.spec), terminator: "")
                return .success
            }
            if parsed.wantsVersion {
                print(version)
                return .success
            }
            command = try verb.init(parsed)
        } catch {
            return usageError(error.message, verb: verb.spec.name)
        }
        do {
            try command.run()
        } catch {
            return error
        }
        return .success
    }

    /// `pathctl help` and `pathctl help VERB`.
    static func help(_ name: String?) -> ExitCode {
        guard let name else { return run(["--help"]) }
        guard let verb = verb(named: name) else {
            return usageError(unknownVerb(name), verb: nil)
        }
        print(HelpText.verb(verb.spec), terminator: "")
        return .success
    }

    /// `pathctl --generate-completion-script bash|zsh|fish`, what packaging installs.
    static func completionScript(_ shell: String?) -> ExitCode {
        switch shell {
        case "bash": print(BashCompletion.script(specs), terminator: "")
        case "zsh": print(ZshCompletion.script(specs), terminator: "")
        case "fish": print(FishCompletion.script(specs), terminator: "")
        default: return usageError("--generate-completion-script takes bash, zsh or fish", verb: nil)
        }
        return .success
    }

    static func unknownVerb(_ name: String) -> String {
        "unknown verb '\(HumanText.escaped(name))'; the verbs are: \(verbNames.joined(separator: ", "))"
    }

    /// Says what is wrong with the command line and where help is; 64 (EX_USAGE).
    static func usageError(_ message: String, verb: String?) -> ExitCode {
        printError("pathctl: \(message)")
        printError("Try 'pathctl \(verb.map { $0 + " " } ?? "")--help' for more information.")
        return .validationFailure
    }
}

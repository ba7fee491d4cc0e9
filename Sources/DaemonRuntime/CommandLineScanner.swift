// SPDX-License-Identifier: Apache-2.0
import CGetopt
import Locking
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// What a command line asks for.
package enum CommandLineRequest<Line> {
    case run(Line)
    case help
    case version
}

extension CommandLineRequest: Equatable where Line: Equatable {}
extension CommandLineRequest: Sendable where Line: Sendable {}

/// Command lines parsed with glibc's getopt_long, as systemd's daemons parse theirs: pathmond and
/// pathmond-dispatcher need a few options each and no verbs, and swift-argument-parser cost the daemon about 1 MB
/// of the shipped binary (issue 25). A function of the arguments alone, so tests hold every option to it.
package enum CommandLineScanner {
    /// getopt_long keeps its place in globals (optind, optarg, optopt): one parse at a time in the process.
    private static let getoptLock = Lock()

    /// Parses the arguments after the program's name into `line`: the request and the operands left over. GNU
    /// rules: `--name value` or `--name=value`, an unambiguous prefix of a name, options and operands in any order,
    /// `--` ends the options.
    package static func scan<Line>(
        _ arguments: [String], program: String, options: [CommandLineOption<Line>], into line: Line
    ) throws(CommandLineError) -> (CommandLineRequest<Line>, [String]) {
        try getoptLock.withLock { () throws(CommandLineError) in
            try scanLocked(arguments, program: program, options: options, into: line)
        }
    }

    /// One getopt_long pass over a private copy of the arguments: the request and the operands left over.
    private static func scanLocked<Line>(
        _ arguments: [String], program: String, options: [CommandLineOption<Line>], into line: Line
    ) throws(CommandLineError) -> (CommandLineRequest<Line>, [String]) {
        let help = Int32(UInt8(ascii: "h"))
        let firstLong: Int32 = 256
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let names = options.map { strdup($0.name) } + [strdup("version"), strdup("help")]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in names { free(pointer) }
        }
        var table = options.enumerated().map { index, option in
            CGetopt.option(
                name: names[index], has_arg: option.takesValue ? required_argument : no_argument, flag: nil,
                val: firstLong + Int32(index))
        }
        let version = firstLong + Int32(options.count)
        table.append(CGetopt.option(name: names[options.count], has_arg: no_argument, flag: nil, val: version))
        table.append(CGetopt.option(name: names[options.count + 1], has_arg: no_argument, flag: nil, val: help))
        table.append(CGetopt.option(name: nil, has_arg: 0, flag: nil, val: 0))
        cgetopt_restart()
        var line = line
        var request: CommandLineRequest<Line>?
        let count = Int32(argv.count - 1)
        while true {
            let code = getopt_long(count, &argv, ":h", table, nil)
            if code == -1 { break }
            switch code {
            case help: request = request ?? .help
            case version: request = request ?? .version
            case firstLong..<version:
                let option = options[Int(code - firstLong)]
                try option.apply(cgetopt_value().map { String(cString: $0) }, &line)
            case Int32(UInt8(ascii: ":")):
                throw .missingValue(name(of: cgetopt_problem(), in: options, argv: argv))
            default:
                // An unknown name leaves optopt 0; a flag given a value (`--dispatcher=1`) leaves the flag's code.
                let problem = cgetopt_problem()
                if problem >= firstLong && problem < version {
                    throw .unexpectedValue(name(of: problem, in: options, argv: argv))
                }
                if problem > 0 { throw .unknownOption("-" + String(UnicodeScalar(UInt8(truncatingIfNeeded: problem)))) }
                let word = argv[Int(cgetopt_index()) - 1].map { String(cString: $0) } ?? "?"
                let typed = String(word.prefix { $0 != "=" })
                let candidates = options.filter { ("--" + $0.name).hasPrefix(typed) }
                if typed.hasPrefix("--") && candidates.count > 1 { throw .ambiguousOption(typed) }
                throw .unknownOption(typed)
            }
        }
        let operands = argv[Int(cgetopt_index())..<Int(count)].map { String(cString: $0!) }
        return (request ?? .run(line), operands)
    }

    /// `--name` of the option getopt_long answered with `code` (the word as typed if it was no option of ours).
    private static func name<Line>(
        of code: Int32, in options: [CommandLineOption<Line>], argv: [UnsafeMutablePointer<CChar>?]
    ) -> String {
        let index = Int(code) - 256
        if options.indices.contains(index) { return "--" + options[index].name }
        return argv[Int(cgetopt_index()) - 1].map { String(cString: $0) } ?? "?"
    }
}

/// A command line a program of pathmond's refuses: a usage error (exit 64), worded as swift-argument-parser worded
/// it.
package enum CommandLineError: Error, Equatable, CustomStringConvertible {
    /// sysexits.h's EX_USAGE, as swift-argument-parser exited on a usage error.
    package static let usageExitCode: Int32 = 64

    case unknownOption(String)
    /// A prefix of more than one name: `--dispatcher-s`.
    case ambiguousOption(String)
    case missingValue(String)
    /// A flag given a value: `--dispatcher=yes`.
    case unexpectedValue(String)
    case invalidValue(option: String, value: String, accepted: [String])
    case unexpectedArgument(String)
    case fileWithoutCheckConfig

    package var description: String {
        switch self {
        case .unknownOption(let word): "Unknown option '\(word)'"
        case .ambiguousOption(let word): "Ambiguous option '\(word)'"
        case .missingValue(let option): "Missing value for '\(option)'"
        case .unexpectedValue(let option): "The option '\(option)' takes no value"
        case .invalidValue(let option, let value, let accepted):
            "The value '\(value)' is invalid for '\(option)'"
                + (accepted.isEmpty ? "" : "; one of: " + accepted.joined(separator: ", "))
        case .unexpectedArgument(let word): "Unexpected argument '\(word)'"
        case .fileWithoutCheckConfig:
            "a file argument is only taken with --check-config; use --config FILE to run with it"
        }
    }
}

/// One `--name`: whether it takes a value, where the value goes, and what `--help` says of it (its line, and the
/// default it shows, read from the line a parse starts with).
package struct CommandLineOption<Line>: Sendable {
    package let name: String
    package let hidden: Bool
    package let takesValue: Bool
    /// What `--help` says the option does; empty for a hidden one, which `--help` does not show.
    package let help: String
    let apply: @Sendable (String?, inout Line) throws(CommandLineError) -> Void
    /// What `--help` adds after `help` for the line a parse starts with: "(default: …)", or nothing.
    let shownDefault: @Sendable (Line) -> String?

    package init(
        _ name: String, value field: WritableKeyPath<Line, String> & Sendable, hidden: Bool = false, help: String = ""
    ) {
        self.init(
            name, hidden: hidden, takesValue: true, help: help,
            shownDefault: { "(default: \($0[keyPath: field]))" }
        ) { value, line throws(CommandLineError) in
            line[keyPath: field] = value ?? ""
        }
    }

    /// A value with no default: `help` says what happens without it.
    package init(
        _ name: String, value field: WritableKeyPath<Line, String?> & Sendable, hidden: Bool = false, help: String = ""
    ) {
        self.init(name, hidden: hidden, takesValue: true, help: help) { value, line throws(CommandLineError) in
            line[keyPath: field] = value
        }
    }

    package init(_ name: String, value field: WritableKeyPath<Line, Int> & Sendable, help: String = "") {
        self.init(
            name, hidden: false, takesValue: true, help: help, shownDefault: { "(default: \($0[keyPath: field]))" }
        ) { value, line throws(CommandLineError) in
            guard let value, let number = Int(value) else {
                throw .invalidValue(option: "--" + name, value: value ?? "", accepted: [])
            }
            line[keyPath: field] = number
        }
    }

    package init(_ name: String, level field: WritableKeyPath<Line, Logger.Level> & Sendable, help: String = "") {
        let levels = Logger.Level.allCases.map(\.rawValue)
        self.init(
            name, hidden: false, takesValue: true, help: help,
            shownDefault: { "(values: \(levels.joined(separator: ", ")); default: \($0[keyPath: field].rawValue))" }
        ) { value, line throws(CommandLineError) in
            guard let value, let level = Logger.Level(rawValue: value) else {
                throw .invalidValue(option: "--" + name, value: value ?? "", accepted: levels)
            }
            line[keyPath: field] = level
        }
    }

    /// A flag: giving it stores `setting` (true unless said otherwise: `--no-system-bus` stores false).
    package init(
        _ name: String, flag field: WritableKeyPath<Line, Bool> & Sendable, setting: Bool = true, help: String = ""
    ) {
        self.init(name, hidden: false, takesValue: false, help: help) { _, line throws(CommandLineError) in
            line[keyPath: field] = setting
        }
    }

    private init(
        _ name: String, hidden: Bool, takesValue: Bool, help: String,
        shownDefault: @escaping @Sendable (Line) -> String? = { _ in nil },
        apply: @escaping @Sendable (String?, inout Line) throws(CommandLineError) -> Void
    ) {
        self.name = name
        self.hidden = hidden
        self.takesValue = takesValue
        self.help = help
        self.shownDefault = shownDefault
        self.apply = apply
    }
}

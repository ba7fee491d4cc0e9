import PathProtocol
// SPDX-License-Identifier: Apache-2.0
import PathmondClient

/// Which network a policy verb is about: the one on an interface now, or one named by its key.
struct NetworkTarget {
    static let argument = ArgumentSpec(
        name: "interface", help: "The interface whose current network to mark, e.g. wlan0.", isOptional: true,
        completion: .interface)
    static let specs: [OptionSpec] = [
        .option(
            "key", "A network key from 'pathctl networks', for a network that is not attached now.",
            completion: .networkKey)
    ]

    var interface: String?
    var key: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        interface = arguments.argument(0)
        key = arguments.value("key")
        switch (interface, key) {
        case (nil, nil): throw UsageError("Name an interface (e.g. wlan0) or give a network key with --key.")
        case (_?, _?): throw UsageError("Give either an interface or --key, not both.")
        default: break
        }
    }
}

/// What the marking verbs read: the network, whether the mark is cleared (`--off`), and the connection.
struct NetworkMark {
    /// The network's options, `--off` (with what it means for the verb) and `extra`, then the connection's.
    static func specs(off: String, extra: [OptionSpec] = []) -> [OptionSpec] {
        NetworkTarget.specs + [.flag("off", off)] + extra + ConnectionOptions.specs
    }

    var target: NetworkTarget
    var off: Bool
    var options: ConnectionOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        target = try NetworkTarget(arguments)
        off = arguments.flag("off")
    }

    /// Makes the policy call for the network and prints the network as it now stands.
    func change(
        _ call: (PathmondConnection, NetworkTarget) throws(PathmondClientError) -> NetworkDetails
    ) throws(ExitCode) {
        try runPolicyChange(options) { connection throws(PathmondClientError) in try call(connection, target) }
    }
}

/// `pathctl set-constrained wlan0 [--off]`: Low Data Mode for a network.
struct SetConstrained: Verb {
    static let spec = VerbSpec(
        name: "set-constrained",
        abstract: "Mark the network on an interface (or --key) as constrained (Low Data Mode), or clear it with --off.",
        options: NetworkMark.specs(off: "Clear the mark."), arguments: [NetworkTarget.argument])

    let mark: NetworkMark

    init(_ arguments: ParsedArguments) throws(UsageError) { mark = try NetworkMark(arguments) }

    func run() throws(ExitCode) {
        try mark.change { connection, target throws(PathmondClientError) in
            try connection.setConstrained(!mark.off, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl set-ultra-constrained sat0 [--off]`: a satellite link, hidden from apps that did not opt in.
struct SetUltraConstrained: Verb {
    static let spec = VerbSpec(
        name: "set-ultra-constrained",
        abstract: "Mark the network on an interface (or --key) as ultra-constrained (a satellite link), or clear it"
            + " with --off.",
        discussion: """
            An ultra-constrained network is constrained, and apps that did not opt in to such networks are not shown \
            it at all (as on Apple's and Android's systems); pathctl status and the system policy see it as \
            constrained.
            """,
        options: NetworkMark.specs(off: "Clear the mark."), arguments: [NetworkTarget.argument])

    let mark: NetworkMark

    init(_ arguments: ParsedArguments) throws(UsageError) { mark = try NetworkMark(arguments) }

    func run() throws(ExitCode) {
        try mark.change { connection, target throws(PathmondClientError) in
            try connection.setUltraConstrained(!mark.off, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl set-expensive wlan0 [--off | --auto]`: the expensive flag for a network, over detection.
struct SetExpensive: Verb {
    static let spec = VerbSpec(
        name: "set-expensive",
        abstract: "Mark the network on an interface (or --key) as expensive (metered); --off as not expensive;"
            + " --auto to leave it to detection.",
        options: NetworkMark.specs(
            off: "Mark it not expensive (unmetered), whatever detection says.",
            extra: [.flag("auto", "Forget the setting: detection decides again.")]),
        arguments: [NetworkTarget.argument])

    let mark: NetworkMark
    let auto: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        mark = try NetworkMark(arguments)
        auto = arguments.flag("auto")
        if mark.off && auto { throw UsageError("Give --off or --auto, not both.") }
    }

    func run() throws(ExitCode) {
        let value: Bool? = auto ? nil : !mark.off
        try mark.change { connection, target throws(PathmondClientError) in
            try connection.setExpensive(value, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl networks`: the networks pathmond remembers or sees.
struct Networks: Verb {
    static let spec = VerbSpec(
        name: "networks", abstract: "List remembered and attached networks.", options: ConnectionOptions.specs)

    var options: ConnectionOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
    }

    func run() throws(ExitCode) {
        do {
            let networks = try options.connect().networks()
            if let mode = options.jsonMode {
                print(JSONOutput.encode(networks, mode: mode))
            } else {
                let table = NetworkTable.render(networks, width: TerminalWidth.current, legend: !options.noLegend)
                // Without a legend and without networks there is nothing to say, not even an empty line.
                if !table.isEmpty { print(table) }
            }
        } catch {
            throw fail(error)
        }
    }
}

/// `pathctl forget KEY`.
struct Forget: Verb {
    static let spec = VerbSpec(
        name: "forget", abstract: "Forget what was set for a network.", options: ConnectionOptions.specs,
        arguments: [
            ArgumentSpec(name: "key", help: "The network key, as 'pathctl networks' shows it.", completion: .networkKey)
        ])

    var key: String
    var options: ConnectionOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        // The parser refuses a command line without it.
        key = arguments.argument(0) ?? ""
    }

    func run() throws(ExitCode) {
        do {
            try options.connect().forgetNetwork(key: key)
            if options.jsonMode == nil { print("Forgot \(HumanText.escaped(key)).") }
        } catch {
            throw fail(error)
        }
    }
}

/// Connects, runs one policy call, and prints the network as it now stands.
func runPolicyChange(
    _ options: ConnectionOptions, _ body: (PathmondConnection) throws(PathmondClientError) -> NetworkDetails
) throws(ExitCode) {
    do {
        let network = try body(try options.connect())
        if let mode = options.jsonMode {
            print(JSONOutput.encode(network, mode: mode))
        } else {
            print(NetworkTable.render([network], width: TerminalWidth.current, legend: !options.noLegend))
        }
    } catch {
        throw fail(error)
    }
}

// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathMonitor
import PathProtocol

/// Which network a policy verb is about: the one on an interface now, or one named by its key.
struct NetworkTarget: ParsableArguments {
    @Argument(help: "The interface whose current network to mark, e.g. wlan0.", completion: Completions.interface)
    var interface: String?

    @Option(
        help: "A network key from 'pathctl networks', for a network that is not attached now.",
        completion: Completions.networkKey)
    var key: String?

    func validate() throws {
        switch (interface, key) {
        case (nil, nil): throw ValidationError("Name an interface (e.g. wlan0) or give a network key with --key.")
        case (_?, _?): throw ValidationError("Give either an interface or --key, not both.")
        default: break
        }
    }
}

/// `pathctl set-constrained wlan0 [--off]`: Low Data Mode for a network.
struct SetConstrained: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark the network on an interface (or --key) as constrained (Low Data Mode), or clear it with --off.")

    @OptionGroup var target: NetworkTarget
    @Flag(help: "Clear the mark.") var off = false
    @OptionGroup var options: ConnectionOptions

    func run() throws {
        try runPolicyChange(options) { connection throws(PathmondClientError) in
            try connection.setConstrained(!off, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl set-ultra-constrained sat0 [--off]`: a satellite link, hidden from apps that did not opt in.
struct SetUltraConstrained: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark the network on an interface (or --key) as ultra-constrained (a satellite link), or clear it"
            + " with --off.",
        discussion: """
            An ultra-constrained network is constrained, and apps that did not opt in to such networks are not shown \
            it at all (as on Apple's and Android's systems); pathctl status and the system policy see it as \
            constrained.
            """)

    @OptionGroup var target: NetworkTarget
    @Flag(help: "Clear the mark.") var off = false
    @OptionGroup var options: ConnectionOptions

    func run() throws {
        try runPolicyChange(options) { connection throws(PathmondClientError) in
            try connection.setUltraConstrained(!off, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl set-expensive wlan0 [--off | --auto]`: the expensive flag for a network, over detection.
struct SetExpensive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark the network on an interface (or --key) as expensive; --off as not expensive; --auto to"
            + " leave it to detection.")

    @OptionGroup var target: NetworkTarget
    @Flag(help: "Mark it not expensive, whatever detection says.") var off = false
    @Flag(help: "Forget the setting: detection decides again.") var auto = false
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if off && auto { throw ValidationError("Give --off or --auto, not both.") }
    }

    func run() throws {
        let value: Bool? = auto ? nil : !off
        try runPolicyChange(options) { connection throws(PathmondClientError) in
            try connection.setExpensive(value, interface: target.interface, key: target.key)
        }
    }
}

/// `pathctl networks`: the networks pathmond remembers or sees.
struct Networks: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List remembered and attached networks.")

    @OptionGroup var options: ConnectionOptions

    func run() throws {
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
struct Forget: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Forget what was set for a network.")

    @Argument(help: "The network key, as 'pathctl networks' shows it.", completion: Completions.networkKey)
    var key: String
    @OptionGroup var options: ConnectionOptions

    func run() throws {
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
) throws {
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

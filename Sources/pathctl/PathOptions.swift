// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathModel

/// The flags that narrow the path to what an app may use, as NWParameters do.
struct PathOptions: ParsableArguments {
    @Option(help: "Only this interface type: wired, wifi, cellular or other.")
    var require: InterfaceKind?

    @Option(help: "Not this interface type (repeatable).")
    var prohibit: [InterfaceKind] = []

    @Option(name: .customLong("interface"), help: "Only the interface of this name.", completion: Completions.interface)
    var requiredInterface: String?

    @Flag(help: "No expensive interfaces (cellular, tethering, marked expensive).")
    var noExpensive = false

    @Flag(help: "No interfaces on Low Data Mode networks.")
    var noConstrained = false

    @Option(help: "The IP version needed: 4 or 6.")
    var family: FamilyOption?

    @Flag(help: "Leave out ultra-constrained (satellite) interfaces, as an app that did not opt in to them sees it.")
    var noUltraConstrained = false

    @Flag(help: "No roaming interfaces (a modem registered on a visited network).")
    var noRoaming = false

    var parameters: PathParameters {
        PathParameters(
            requiredInterfaceKind: require, prohibitedInterfaceKinds: Set(prohibit),
            requiredInterfaceName: requiredInterface,
            prohibitsExpensive: noExpensive, prohibitsConstrained: noConstrained,
            family: family?.requirement ?? .any,
            // pathctl speaks for the system: it sees every interface unless asked to look as an app would.
            allowsUltraConstrained: !noUltraConstrained, prohibitsRoaming: noRoaming)
    }
}

/// `--family 4` or `--family 6`.
enum FamilyOption: String, ExpressibleByArgument, CaseIterable {
    case four = "4"
    case six = "6"

    var requirement: PathParameters.FamilyRequirement { self == .four ? .ipv4 : .ipv6 }
}

extension InterfaceKind: ExpressibleByArgument {
    public init?(argument: String) {
        guard let kind = InterfaceKind(rawValue: argument.lowercased()), kind != .loopback else { return nil }
        self = kind
    }

    public static var allValueStrings: [String] { ["wired", "wifi", "cellular", "other"] }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The flags that narrow the path to what an app may use, as NWParameters do.
struct PathOptions {
    static let kinds = ["wired", "wifi", "cellular", "other"]

    static let specs = OptionSpec.section(
        "Path requirements",
        [
            .option("require", "Only this interface type: wired, wifi, cellular or other.", completion: .values(kinds)),
            .option("prohibit", "Not this interface type (repeatable).", completion: .values(kinds))
                .with { $0.isRepeatable = true },
            .option("interface", "Only the interface of this name.", completion: .interface),
            .flag("no-expensive", "No expensive (metered) interfaces (cellular, tethering, marked expensive)."),
            .flag("no-constrained", "No interfaces on Low Data Mode networks."),
            .option("family", "The IP version needed: 4 or 6.", completion: .values(["4", "6"])),
            .flag(
                "no-ultra-constrained",
                "Leave out ultra-constrained (satellite) interfaces, as an app that did not opt in to them sees it."),
            .flag("no-roaming", "No roaming interfaces (a modem registered on a visited network)."),
        ])

    var require: InterfaceKind?
    var prohibit: [InterfaceKind]
    var requiredInterface: String?
    var noExpensive: Bool
    var noConstrained: Bool
    var family: PathParameters.FamilyRequirement
    var noUltraConstrained: Bool
    var noRoaming: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let kinds = "wired, wifi, cellular or other"
        require = try arguments.value("require", expected: kinds, Self.kind)
        prohibit = try arguments.values("prohibit", expected: kinds, Self.kind)
        requiredInterface = arguments.value("interface")
        noExpensive = arguments.flag("no-expensive")
        noConstrained = arguments.flag("no-constrained")
        family =
            try arguments.value("family", expected: "4 or 6") { $0 == "4" ? .ipv4 : $0 == "6" ? .ipv6 : nil } ?? .any
        noUltraConstrained = arguments.flag("no-ultra-constrained")
        noRoaming = arguments.flag("no-roaming")
    }

    /// An interface type a user may name (any case; loopback is never a path).
    static func kind(_ argument: String) -> InterfaceKind? {
        guard let kind = InterfaceKind(rawValue: argument.lowercased()), kind != .loopback else { return nil }
        return kind
    }

    var parameters: PathParameters {
        PathParameters(
            requiredInterfaceKind: require, prohibitedInterfaceKinds: Set(prohibit),
            requiredInterfaceName: requiredInterface,
            prohibitsExpensive: noExpensive, prohibitsConstrained: noConstrained,
            family: family,
            // pathctl speaks for the system: it sees every interface unless asked to look as an app would.
            allowsUltraConstrained: !noUltraConstrained, prohibitsRoaming: noRoaming)
    }
}

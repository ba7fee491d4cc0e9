import PathProtocol
// SPDX-License-Identifier: Apache-2.0
import PathmondClient

/// The human-readable form of networks.
enum NetworkTable {
    static func render(_ networks: [NetworkDetails], width: Int? = nil, legend: Bool = true) -> String {
        guard !networks.isEmpty else { return legend ? "No networks remembered or attached." : "" }
        let rows = networks.map { network in
            [
                network.displayName,
                network.ultraConstrained == true ? "yes (ultra)" : constrainedText(network.constrained),
                expensiveText(network.expensive),
                network.interfaces.isEmpty ? "-" : network.interfaces.joined(separator: ","), network.key,
            ]
        }
        // The name first, as people look for it; the key last, for `--key` and `pathctl name`.
        let table = TextTable(
            header: ["NETWORK", "CONSTRAINED", "EXPENSIVE", "ATTACHED", "KEY"], rows: rows, shrinkable: [0, 3])
        return table.render(width: width, legend: legend)
    }

    /// Low Data Mode is the user's choice alone (nothing detects it): "yes" when set, else "no".
    private static func constrainedText(_ value: Bool?) -> String {
        value == true ? "yes" : "no"
    }

    /// "yes" or "no" when the user pinned it, "auto" when detection decides.
    private static func expensiveText(_ value: Bool?) -> String {
        value.map { $0 ? "yes" : "no" } ?? "auto"
    }
}

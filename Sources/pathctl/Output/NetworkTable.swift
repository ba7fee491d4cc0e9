import PathProtocol

/// The human-readable form of networks.
enum NetworkTable {
    static func render(_ networks: [WireNetwork]) -> String {
        guard !networks.isEmpty else { return "No networks remembered or attached." }
        let rows = networks.map { network in
            [
                network.key, network.displayName, flag(network.constrained), flag(network.expensive),
                network.interfaces.isEmpty ? "-" : network.interfaces.joined(separator: ","),
            ]
        }
        return TextTable.render(header: ["KEY", "NETWORK", "CONSTRAINED", "EXPENSIVE", "ATTACHED"], rows: rows)
    }

    /// "yes", "no", or "auto" when the user left it to detection.
    private static func flag(_ value: Bool?) -> String {
        value.map { $0 ? "yes" : "no" } ?? "auto"
    }
}

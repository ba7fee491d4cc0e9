import PathModel
import PathProtocol

/// The human-readable form of `pathctl status`.
enum StatusTable {
    /// The path in one line: "satisfied via eth0 (wired), wlan0 (wifi); IPv4, IPv6; gateways 192.0.2.1".
    static func summary(_ path: Path) -> String {
        switch path.status {
        case .satisfied:
            let via = path.availableInterfaces.map {
                "\(TerminalText.escaped($0.name)) (\($0.kind.rawValue)\($0.isTunnel ? ", tunnel" : ""))"
            }
            .joined(separator: ", ")
            var facts = [
                path.supportsIPv4 ? "IPv4" : nil, path.supportsIPv6 ? "IPv6" : nil, path.supportsDNS ? "DNS" : nil,
            ]
            .compactMap { $0 }
            if path.isExpensive { facts.append("expensive") }
            if path.isConstrained { facts.append("constrained") }
            let gateways =
                path.gateways.isEmpty ? "" : "; gateways " + path.gateways.map(\.description).joined(separator: ", ")
            return "satisfied via \(via); \(facts.joined(separator: ", "))\(gateways)"
        case .unsatisfied:
            return "unsatisfied: \(describe(path.unsatisfiedReason))"
        }
    }

    static func describe(_ reason: UnsatisfiedReason?) -> String {
        switch reason {
        case .noInterfaces: return "no network interfaces"
        case .interfacesDown: return "every interface is down"
        case .noCarrier: return "no interface has carrier (cable, association or peer missing)"
        case .noAddress: return "no interface has a usable address"
        case .noDefaultRoute: return "no default route"
        case .onlyProhibitedInterfaces: return "only interfaces the parameters prohibit are usable"
        case .familyUnavailable: return "no usable interface routes the required IP version"
        case .onlyExpensiveInterfaces: return "only expensive interfaces are usable, and expensive is prohibited"
        case .onlyConstrainedInterfaces: return "only Low Data Mode networks are usable, and constrained is prohibited"
        case nil: return "unknown reason"
        }
    }

    static func render(path: Path, interfaces: [WireInterface], status: WireDaemonStatus?) -> String {
        var lines = ["Path: " + summary(path)]
        if let problem = status?.policyProblem {
            lines.append("Warning: the policy file \(status?.policyFile ?? "") was damaged: \(problem)")
        }
        lines.append("")
        let header = [
            "IDX", "INTERFACE", "TYPE", "STATE", "EXPENSIVE", "CONSTRAINED", "NETWORK", "ADDRESSES", "GATEWAY",
        ]
        var rows: [[String]] = []
        for interface in interfaces {
            let addresses = interface.addresses.map { "\($0.address)/\($0.prefixLength)" }
            let gateways = interface.routes.compactMap(\.gateway)
            let height = max(1, addresses.count, gateways.count)
            for line in 0..<height {
                let first = line == 0
                rows.append([
                    first ? String(interface.index) : "", first ? interface.name : "",
                    first ? interface.type + (interface.isTunnel == true ? ", tunnel" : "") : "",
                    first ? stateText(interface) : "", first ? expensiveText(interface) : "",
                    first ? (interface.isConstrained ? "yes" : "no") : "", first ? (interface.network ?? "-") : "",
                    line < addresses.count ? addresses[line] : (first ? "-" : ""),
                    line < gateways.count ? gateways[line] : (first ? "-" : ""),
                ])
            }
        }
        lines.append(TextTable.render(header: header, rows: rows))
        return lines.joined(separator: "\n")
    }

    /// "yes (NetworkManager)", "no (user)", "no": the value and, when something decided it, what did.
    static func expensiveText(_ interface: WireInterface) -> String {
        let value = interface.isExpensive ? "yes" : "no"
        let source: String
        switch interface.expensiveSource {
        case "user": source = "user"
        case "interfaceClass": source = interface.type == "cellular" ? "cellular" : "type"
        case "dhcpLease": source = "DHCP"
        case "networkManager": source = "NetworkManager"
        case "tunnelCarrier": source = "carrier " + TerminalText.escaped(interface.tunnelCarrier ?? "?")
        case let other?: source = other
        case nil: return value
        }
        return "\(value) (\(source))"
    }

    /// "usable", "no-carrier (lower-layer-down)", ...
    private static func stateText(_ interface: WireInterface) -> String {
        let readiness: String
        switch interface.state {
        case "noCarrier": readiness = "no-carrier"
        case "noAddress": readiness = "no-address"
        case "noRoute": readiness = "no-route"
        default: readiness = interface.state
        }
        return "\(readiness) (\(interface.operState))"
    }
}

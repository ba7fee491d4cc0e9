// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

/// The human-readable form of `pathctl status`.
enum StatusTable {
    /// The path in one line: "satisfied via eth0 (wired), wlan0 (wifi); IPv4, IPv6; gateways 192.0.2.1".
    static func summary(_ path: Path) -> String {
        switch path.status {
        case .satisfied:
            let via = path.availableInterfaces.map {
                "\(HumanText.escaped($0.name)) (\($0.kind.rawValue)\($0.isTunnel ? ", tunnel" : ""))"
            }
            .joined(separator: ", ")
            var facts = [
                path.supportsIPv4 ? "IPv4" : nil, path.supportsIPv6 ? "IPv6" : nil, path.supportsDNS ? "DNS" : nil,
            ]
            .compactMap { $0 }
            if path.isExpensive { facts.append("expensive") }
            if path.isRoaming { facts.append("roaming") }
            switch path.captivePortal {
            case .captive:
                facts.append("captive portal" + (path.captivePortalURI.map { " " + HumanText.escaped($0) } ?? ""))
            case .unknown where path.captivePortalURI != nil:
                facts.append("portal API " + HumanText.escaped(path.captivePortalURI ?? ""))
            case .limited: facts.append("limited connectivity")
            case .open, .unknown: break
            }
            // RFC 8908's session figures, when pathmond asked the portal's API: as of its answer.
            if let api = path.captivePortalAPI {
                if let seconds = api.secondsRemaining { facts.append("portal session \(seconds)s left") }
                if let bytes = api.bytesRemaining { facts.append("portal allows \(bytes) bytes more") }
            }
            // The grade alone: the figures are in the interface's LINK column, and a monitor line stays short.
            if path.linkQualityGrade != .unknown { facts.append("link " + path.linkQualityGrade.rawValue) }
            if path.isUltraConstrained {
                facts.append("constrained (ultra)")
            } else if path.isConstrained, let limit = path.dataLimit, limit.constrains {
                // Why, when the plan's limit made it so: the figure people check against their carrier's.
                facts.append("constrained (data limit: \(limit.summary))")
            } else if path.isConstrained {
                facts.append("constrained")
            }
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
        case .onlyRoamingInterfaces: return "only roaming interfaces are usable, and roaming is prohibited"
        case nil: return "unknown reason"
        }
    }

    /// The path line, any warning, and the table of interfaces (already filtered by the caller).
    static func render(
        path: Path, interfaces: [InterfaceDetails], status: DaemonStatus?, width: Int? = nil, legend: Bool = true
    ) -> String {
        var lines = ["Path: " + summary(path)]
        if let problem = status?.policyProblem {
            lines.append(
                "Warning: the policy file \(HumanText.escaped(status?.policyFile ?? "")) was damaged: "
                    + HumanText.escaped(problem))
        }
        guard !interfaces.isEmpty else {
            if legend { lines += ["", "No interfaces match."] }
            return lines.joined(separator: "\n")
        }
        lines.append("")
        let header = [
            "IDX", "INTERFACE", "TYPE", "STATE", "LINK", "EXPENSIVE", "CONSTRAINED", "NETWORK", "ADDRESSES", "GATEWAY",
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
                    first ? typeText(interface) : "",
                    first ? stateText(interface) : "",
                    first ? (interface.linkQuality?.linkQuality.map { linkText($0) } ?? "-") : "",
                    first ? expensiveText(interface) : "",
                    first ? constrainedText(interface) : "", first ? networkText(interface) : "",
                    line < addresses.count ? addresses[line] : (first ? "-" : ""),
                    line < gateways.count ? gateways[line] : (first ? "-" : ""),
                ])
            }
        }
        // On a narrow terminal the expensive source and the network's name are ellipsized; the index, the gateways
        // (the path line names them) and then the addresses go, since a cut address would read as another one.
        let table = TextTable(header: header, rows: rows, shrinkable: [5, 7, 4], droppable: [0, 9, 8, 4])
        lines.append(table.render(width: width, legend: legend))
        return lines.joined(separator: "\n")
    }

    /// The network's name for people (the user's, else a description), never the raw key; "-" when none.
    private static func networkText(_ interface: InterfaceDetails) -> String {
        interface.networkName ?? interface.network ?? "-"
    }

    /// "good (1000 Mb/s, full duplex)", "moderate (-72 dBm, 54 Mb/s expected)", "minimal (EDGE, 40 %)".
    static func linkText(_ quality: LinkQuality) -> String {
        var figures: [String] = []
        if let speed = quality.speedMbps { figures.append("\(speed) Mb/s") }
        if let duplex = quality.isFullDuplex { figures.append(duplex ? "full duplex" : "half duplex") }
        if let signal = quality.signalDBm { figures.append("\(signal) dBm") }
        if let expected = quality.expectedThroughputKbps { figures.append("\(expected / 1000) Mb/s expected") }
        if quality.expectedThroughputKbps == nil, let rate = quality.transmitBitrateKbps {
            figures.append("\(rate / 1000) Mb/s tx rate")
        }
        if let technologies = quality.accessTechnologies { figures.append(technologyName(technologies)) }
        if let percent = quality.signalQualityPercent { figures.append("signal \(percent) %") }
        let grade = quality.grade.rawValue
        return figures.isEmpty ? grade : grade + " (" + figures.joined(separator: ", ") + ")"
    }

    /// The newest technology among ModemManager's access technology flags, by its common name.
    static func technologyName(_ flags: UInt32) -> String {
        let names: [(UInt32, String)] = [
            (1 << 15, "5G"), (1 << 14, "LTE"), (1 << 16, "LTE-M"), (1 << 17, "NB-IoT"), (1 << 9, "HSPA+"),
            (1 << 8, "HSPA"), (1 << 7, "HSUPA"), (1 << 6, "HSDPA"), (1 << 5, "UMTS"), (1 << 13, "EV-DO"),
            (1 << 12, "EV-DO"), (1 << 11, "EV-DO"), (1 << 4, "EDGE"), (1 << 3, "GPRS"), (1 << 10, "1xRTT"),
            (1 << 2, "GSM"), (1 << 1, "GSM"),
        ]
        return names.first { flags & $0.0 != 0 }?.1 ?? "unknown technology"
    }

    /// "wifi", "wired, tunnel", "cellular, roaming".
    static func typeText(_ interface: InterfaceDetails) -> String {
        interface.type + (interface.isTunnel == true ? ", tunnel" : "")
            + (interface.isRoaming == true ? ", roaming" : "")
    }

    /// "yes", "yes (ultra)" for an ultra-constrained interface (a satellite link), or "no".
    static func constrainedText(_ interface: InterfaceDetails) -> String {
        interface.isUltraConstrained == true ? "yes (ultra)" : interface.isConstrained ? "yes" : "no"
    }

    /// "yes (NetworkManager)", "no (user)", "no": the value and, when something decided it, what did.
    static func expensiveText(_ interface: InterfaceDetails) -> String {
        let value = interface.isExpensive ? "yes" : "no"
        let source: String
        switch interface.expensiveSource {
        case "user": source = "user"
        case "interfaceClass": source = interface.type == "cellular" ? "cellular" : "type"
        case "dhcpLease": source = "DHCP"
        case "networkManager": source = "NetworkManager"
        case "roaming": source = "roaming"
        case "tunnelCarrier": source = "carrier " + HumanText.escaped(interface.tunnelCarrier ?? "?")
        case let other?: source = other
        case nil: return value
        }
        return "\(value) (\(source))"
    }

    /// "usable", "no-carrier (lower-layer-down)", ...
    private static func stateText(_ interface: InterfaceDetails) -> String {
        let readiness: String
        switch interface.state {
        case "noCarrier": readiness = "no-carrier"
        case "noAddress": readiness = "no-address"
        case "noRoute": readiness = "no-route"
        default: readiness = interface.state
        }
        // "usable (up)" and "down (down)" say nothing twice.
        if (interface.state == "usable" && interface.operState == "up") || interface.state == interface.operState {
            return readiness
        }
        return "\(readiness) (\(interface.operState))"
    }
}

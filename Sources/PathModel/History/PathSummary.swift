// SPDX-License-Identifier: Apache-2.0
/// What a history entry keeps of a path: enough to tell one path from the next in a timeline (status, reason,
/// interfaces in order, cost, families), without addresses and gateways, so that an entry stays small.
public struct PathSummary: Sendable, Hashable {
    public var status: PathStatus
    public var unsatisfiedReason: UnsatisfiedReason?
    /// The available interfaces' names, most preferred first.
    public var interfaces: [String]
    public var isExpensive: Bool
    public var isConstrained: Bool
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool

    public init(
        status: PathStatus, unsatisfiedReason: UnsatisfiedReason? = nil, interfaces: [String] = [],
        isExpensive: Bool = false, isConstrained: Bool = false, supportsIPv4: Bool = false, supportsIPv6: Bool = false
    ) {
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.interfaces = interfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
    }

    /// The summary of a path.
    public init(_ path: Path) {
        self.init(
            status: path.status, unsatisfiedReason: path.unsatisfiedReason,
            interfaces: path.availableInterfaces.map(\.name), isExpensive: path.isExpensive,
            isConstrained: path.isConstrained, supportsIPv4: path.supportsIPv4, supportsIPv6: path.supportsIPv6)
    }

    /// Whether this is what `init(_:)` makes of the path, field for field and name for name.
    public func summarizes(_ path: Path) -> Bool {
        guard
            status == path.status, unsatisfiedReason == path.unsatisfiedReason, isExpensive == path.isExpensive,
            isConstrained == path.isConstrained, supportsIPv4 == path.supportsIPv4,
            supportsIPv6 == path.supportsIPv6, interfaces.count == path.availableInterfaces.count
        else { return false }
        for (name, interface) in zip(interfaces, path.availableInterfaces) where name != interface.name {
            return false
        }
        return true
    }
}

extension PathSummary: CustomStringConvertible {
    /// "satisfied via eth0, wlan0 (expensive, IPv4)" or "unsatisfied: noCarrier".
    public var description: String {
        guard status == .satisfied else { return "unsatisfied: \(unsatisfiedReason?.rawValue ?? "unknown")" }
        var traits: [String] = []
        if isExpensive { traits.append("expensive") }
        if isConstrained { traits.append("constrained") }
        switch (supportsIPv4, supportsIPv6) {
        case (true, true): traits.append("IPv4+IPv6")
        case (true, false): traits.append("IPv4")
        case (false, true): traits.append("IPv6")
        case (false, false): break
        }
        let via = interfaces.isEmpty ? "" : " via " + interfaces.joined(separator: ", ")
        return "satisfied\(via)" + (traits.isEmpty ? "" : " (" + traits.joined(separator: ", ") + ")")
    }
}

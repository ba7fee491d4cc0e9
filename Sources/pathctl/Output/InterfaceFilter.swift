// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

/// The path requirements (`--require wifi`, `--interface eth0`, `--family 6`, ...) applied to the rest of the
/// output too, as networkctl's patterns narrow its whole listing: an interface the parameters rule out is not
/// listed, and with a family only that family's addresses and gateways are.
struct InterfaceFilter {
    let parameters: PathParameters

    func apply(_ interfaces: [InterfaceDetails]) -> [InterfaceDetails] {
        interfaces.filter(admits).map(narrowed)
    }

    private func admits(_ interface: InterfaceDetails) -> Bool {
        let kind = InterfaceKind(rawValue: interface.type)
        if let required = parameters.requiredInterfaceKind, kind != required { return false }
        if let kind, parameters.prohibitedInterfaceKinds.contains(kind) { return false }
        if let name = parameters.requiredInterfaceName, interface.name != name { return false }
        if parameters.prohibitsExpensive && interface.isExpensive { return false }
        if parameters.prohibitsConstrained && interface.isConstrained { return false }
        if !parameters.allowsUltraConstrained && interface.isUltraConstrained == true { return false }
        if parameters.prohibitsRoaming && interface.isRoaming == true { return false }
        return true
    }

    private func narrowed(_ interface: InterfaceDetails) -> InterfaceDetails {
        let wantsIPv6: Bool
        switch parameters.family {
        case .any: return interface
        case .ipv4: wantsIPv6 = false
        case .ipv6: wantsIPv6 = true
        }
        var interface = interface
        interface.addresses.removeAll { $0.address.contains(":") != wantsIPv6 }
        interface.routes.removeAll { $0.destination.contains(":") != wantsIPv6 }
        return interface
    }
}

// SPDX-License-Identifier: Apache-2.0
extension PathEvaluator {
    /// The usable interfaces a client's parameters allow, in preference order (positions in `interfaces`); when
    /// none is left, the reason names the first restriction that emptied the list, so the app knows what to relax or
    /// wait for.
    static func narrow(
        _ usable: [Int], of interfaces: [InterfaceStatus], to parameters: PathParameters
    ) -> (positions: [Int], reason: UnsatisfiedReason) {
        var remaining = usable
        for step in NarrowingStep.allCases {
            // Most parameters leave every interface in: no new list then.
            if remaining.allSatisfy({ step.allows(interfaces[$0], parameters) }) { continue }
            remaining = remaining.filter { step.allows(interfaces[$0], parameters) }
            if remaining.isEmpty { return ([], step.reason) }
        }
        return (remaining, .noInterfaces)
    }

    /// Whether the parameters allow an interface whatever the families it routes: its kind and name, cost,
    /// constraint, roaming, and an ultra-constrained interface only when opted in (what the path checks of an
    /// interface, less the family, which the caller judges for its own destination).
    static func allows(_ status: InterfaceStatus, _ parameters: PathParameters) -> Bool {
        // Step by step, not over `allCases`: an array made for every flow a kernel's choice is judged for.
        (parameters.allowsUltraConstrained || !status.isUltraConstrained)
            && NarrowingStep.kindAndName.allows(status, parameters)
            && NarrowingStep.expensive.allows(status, parameters)
            && NarrowingStep.constrained.allows(status, parameters) && NarrowingStep.roaming.allows(status, parameters)
    }
}

/// One requirement of the parameters, in the order `narrow` applies them: the first to leave no interface is the
/// reason the path gives.
private enum NarrowingStep: CaseIterable {
    case kindAndName, family, expensive, constrained, roaming

    var reason: UnsatisfiedReason {
        switch self {
        case .kindAndName: .onlyProhibitedInterfaces
        case .family: .familyUnavailable
        case .expensive: .onlyExpensiveInterfaces
        case .constrained: .onlyConstrainedInterfaces
        case .roaming: .onlyRoamingInterfaces
        }
    }

    func allows(_ status: InterfaceStatus, _ parameters: PathParameters) -> Bool {
        switch self {
        case .kindAndName: parameters.allowsKindAndName(status.interfaceClass.kind, name: status.link.name)
        case .family: !status.supportedFamilies.isDisjoint(with: parameters.family.families)
        case .expensive: !parameters.prohibitsExpensive || !status.isExpensive
        case .constrained: !parameters.prohibitsConstrained || !status.isConstrained
        case .roaming: !parameters.prohibitsRoaming || !status.isRoaming
        }
    }
}

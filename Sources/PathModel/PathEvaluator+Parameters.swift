// SPDX-License-Identifier: Apache-2.0
extension PathEvaluator {
    /// The usable interfaces a client's parameters allow, in preference order; when none is left, the reason
    /// names the first restriction that emptied the list, so the app knows what to relax or wait for.
    static func narrow(
        _ usable: [InterfaceStatus], to parameters: PathParameters
    ) -> (interfaces: [InterfaceStatus], reason: UnsatisfiedReason) {
        let steps: [(UnsatisfiedReason, (InterfaceStatus) -> Bool)] = [
            (.onlyProhibitedInterfaces, { parameters.allowsKindAndName($0.interfaceClass.kind, name: $0.link.name) }),
            (.familyUnavailable, { !$0.supportedFamilies.isDisjoint(with: parameters.family.families) }),
            (.onlyExpensiveInterfaces, { !parameters.prohibitsExpensive || !$0.isExpensive }),
            (.onlyConstrainedInterfaces, { !parameters.prohibitsConstrained || !$0.isConstrained }),
            (.onlyRoamingInterfaces, { !parameters.prohibitsRoaming || !$0.isRoaming }),
        ]
        var remaining = usable
        for (reason, allows) in steps {
            remaining = remaining.filter(allows)
            if remaining.isEmpty { return ([], reason) }
        }
        return (remaining, .noInterfaces)
    }
}

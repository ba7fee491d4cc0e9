// SPDX-License-Identifier: Apache-2.0

/// Why the daemon's parts cannot be put in order or built: each a mistake in the parts' declarations, found before
/// anything starts.
enum ServiceGraphError: Error, Equatable, CustomStringConvertible {
    /// A part needs itself through others: the parts on the cycle, the first repeated at the end.
    case cycle([String])
    /// A part needs one the daemon does not have.
    case missingNeed(part: String, needs: String)
    /// A part asked for one it did not name in `needs`.
    case undeclaredNeed(part: String, asked: String)
    /// The same part listed twice.
    case duplicate(String)

    var description: String {
        switch self {
        case .cycle(let parts): "the daemon's parts need each other in a cycle: " + parts.joined(separator: " → ")
        case .missingNeed(let part, let needs): "\(part) needs \(needs), which the daemon does not have"
        case .undeclaredNeed(let part, let asked): "\(part) asked for \(asked) without naming it in its needs"
        case .duplicate(let part): "\(part) is listed twice among the daemon's parts"
        }
    }
}

/// Puts the daemon's parts in an order where each comes after every part it needs, and builds them in it.
enum ServiceGraph {
    /// `parts` ordered so that each comes after what it needs; parts that do not depend on each other keep their
    /// listed order. A depth-first walk: small, and a cycle is reported with its path.
    static func startOrder(_ parts: [any DaemonService.Type]) throws(ServiceGraphError) -> [any DaemonService.Type] {
        var listed: [ServiceKey: any DaemonService.Type] = [:]
        for part in parts {
            guard listed.updateValue(part, forKey: ServiceKey(part)) == nil else {
                throw .duplicate(ServiceKey(part).description)
            }
        }
        var ordered: [any DaemonService.Type] = []
        var placed: Set<ServiceKey> = []
        // The parts being walked, from the first down to the current one: meeting one of them again is a cycle.
        var path: [ServiceKey] = []

        func visit(_ part: any DaemonService.Type) throws(ServiceGraphError) {
            let key = ServiceKey(part)
            if placed.contains(key) { return }
            if let start = path.firstIndex(of: key) {
                throw .cycle((path[start...] + [key]).map(\.description))
            }
            path.append(key)
            for need in part.needs {
                guard listed[ServiceKey(need)] != nil else {
                    throw .missingNeed(part: key.description, needs: ServiceKey(need).description)
                }
                try visit(need)
            }
            path.removeLast()
            placed.insert(key)
            ordered.append(part)
        }

        for part in parts { try visit(part) }
        return ordered
    }

    /// Builds `parts` in start order, each from the ones it needs; returns them in that order.
    static func build(_ parts: [any DaemonService.Type], setup: DaemonSetup) throws -> [any DaemonService] {
        var built = BuiltServices()
        for part in try startOrder(parts) {
            let service = try part.make(ServiceParts(setup: setup, built: built.visible(to: part)))
            built.add(service)
        }
        return built.inOrder
    }
}

/// The parts built so far, and the ones a part under construction may see: those it named in `needs`.
struct BuiltServices {
    private var byKey: [ServiceKey: any DaemonService] = [:]
    private(set) var inOrder: [any DaemonService] = []
    /// The part these are handed to; nil: every part is visible (the daemon's own view).
    private var asker: (any DaemonService.Type)?

    mutating func add(_ service: any DaemonService) {
        byKey[ServiceKey(type(of: service))] = service
        inOrder.append(service)
    }

    /// What `part` may reach: the parts it needs.
    func visible(to part: any DaemonService.Type) -> BuiltServices {
        var visible = BuiltServices()
        visible.asker = part
        for need in part.needs { visible.byKey[ServiceKey(need)] = byKey[ServiceKey(need)] }
        return visible
    }

    /// The built part of type `Part`; an error if the asker did not name it, or it was not built before.
    func get<Part: DaemonService>(_ type: Part.Type) throws(ServiceGraphError) -> Part {
        let key = ServiceKey(type)
        if let asker, !asker.needs.contains(where: { ServiceKey($0) == key }) {
            throw .undeclaredNeed(part: ServiceKey(asker).description, asked: key.description)
        }
        guard let part = byKey[key] as? Part else {
            throw .missingNeed(part: asker.map { ServiceKey($0).description } ?? "the daemon", needs: key.description)
        }
        return part
    }
}

/// What a part is built from: the daemon's set-up, and the parts it needs.
struct ServiceParts {
    let setup: DaemonSetup
    let built: BuiltServices

    func get<Part: DaemonService>(_ type: Part.Type) throws(ServiceGraphError) -> Part { try built.get(type) }
}

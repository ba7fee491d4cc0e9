// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Watched flows held against what their real sockets' traffic does (issue 40): the flow is viable when its
/// socket's burst left by the flow's interface (by index: a rename keeps it) and the interface still holds the
/// local address (a reply could come back); a new connection (a fresh unbound socket to the peer) that leaves by
/// another interface is the better path, and one that leaves by the flow's own while it is viable means nothing
/// is better. A burst that said nothing (queued for neighbour discovery, dropped by a blackhole) settles nothing.
enum TrafficTruth {
    /// A watched flow beside the real socket it describes.
    struct TrafficFlow {
        let socket: Int
        let flow: Flow
        let log: FlowLog
        /// The flow's interface's index when it was watched: what the flow is (a rename keeps it).
        let interfaceIndex: Int32

        var label: String {
            "\(flow.isBoundToInterface ? "bound" : "unbound") \(flow.localAddress.family) flow on \(flow.interfaceName)"
                + " to \(flow.remoteAddress.map { "\($0)" } ?? "-")"
        }
    }

    /// Watches one flow per socket, on the interface named for it; the flow's local address is the one the socket
    /// bound (or the one connect picked). `withIndexes`: the flow names its interface's index too, as the client
    /// library does (`FlowMonitor(connectedSocket:)`); without, the daemon reads it from the name.
    static func watch(
        _ sockets: RealSockets, on interfaces: [String], _ scenario: Scenario, withIndexes: Bool = false
    ) throws -> [TrafficFlow] {
        let indexes = try RealSockets.transmitted(scenario.namespace).reduce(into: [String: Int32]()) {
            $0[$1.value.name] = $1.key
        }
        return try sockets.sockets.indices.map { position in
            let local = try #require(sockets.localAddresses[position], "socket \(position) has a local address")
            let flow = Flow(
                interfaceName: interfaces[position], localAddress: try #require(IPAddress(local)),
                remoteAddress: IPAddress(sockets.sockets[position].remote),
                isBoundToInterface: sockets.sockets[position].device != nil,
                interfaceIndex: withIndexes ? indexes[interfaces[position]] : nil)
            let log = FlowLog(
                FlowMonitor(flow: flow, socketPath: scenario.daemon.socketPath, retryDelay: .milliseconds(50)))
            return TrafficFlow(
                socket: position, flow: flow, log: log,
                interfaceIndex: try #require(indexes[interfaces[position]], "\(interfaces[position]) exists"))
        }
    }

    /// What the traffic says pathmond must say of a flow; nil fields say nothing.
    struct Expectation: CustomStringConvertible {
        var isViable: Bool?
        /// nil: not checked; .some(nil): no better path; .some(name): that interface is better.
        var better: String??

        func holds(for status: FlowStatus) -> Bool {
            if let isViable, status.isViable != isViable { return false }
            switch better {
            case .none: return true
            case .some(.none): return !status.betterPathAvailable
            case .some(.some(let name)): return status.betterPathAvailable && status.betterInterface == name
            }
        }

        var description: String {
            let viability = isViable.map { $0 ? "viable" : "not viable" } ?? "viability unknown"
            switch better {
            case .none: return viability
            case .some(.none): return "\(viability), nothing better"
            case .some(.some(let name)): return "\(viability), better: \(name)"
            }
        }
    }

    /// Sends on the flow's socket and on a fresh one to its peer: what pathmond must say, and the outcomes.
    /// `held`: each interface's addresses past DAD. The flow's interface must hold its local address (a reply
    /// could not come back otherwise); a new connection's must hold a global one of the peer's family, or the
    /// connection's source would be link-local and nothing says whether another interface is better.
    static func expectation(
        for flow: TrafficFlow, _ sockets: RealSockets, held: [Int32: Set<IPAddress>]
    ) throws -> (Expectation, own: RealSockets.Outcome, fresh: RealSockets.Outcome) {
        let holdsAddress = held[flow.interfaceIndex]?.contains(flow.flow.localAddress) ?? false
        let own = try sockets.send(flow.socket)
        let fresh = try sockets.send(flow.socket, fresh: true)
        var expected = Expectation()
        switch own {
        case .sent(let index, _): expected.isViable = index == flow.interfaceIndex && holdsAddress
        case .refused: expected.isViable = false
        case .unknown: break
        }
        let family = flow.flow.remoteAddress?.family
        if case .sent(let index, let name) = fresh,
            held[index]?.contains(where: { $0.family == family && !$0.isLinkLocal }) == true
        {
            if index != flow.interfaceIndex {
                expected.better = .some(name)
            } else if expected.isViable == true {
                expected.better = .some(nil)
            }
        }
        return (expected, own, fresh)
    }

    /// Whether the kernel's IPv6 decision for a packet to `remote` differs for UDP from what `ip route get` (no
    /// protocol, as pathmond asks) says: a multipath route hashes the protocol in.
    static func dependsOnProtocol(_ namespace: NetworkNamespace, _ remote: IPAddress, from source: IPAddress?) throws
        -> Bool
    {
        let question = "\(remote)" + (source.map { " from \($0)" } ?? "")
        return try KernelMindTests.kernelDevice(namespace, question)
            != KernelMindTests.kernelDevice(namespace, question + " ipproto udp")
    }

    /// The usable addresses (past DAD) of each interface, by index.
    static func addresses(_ namespace: NetworkNamespace) throws -> [Int32: Set<IPAddress>] {
        let result = try runCommand(["ip", "-n", namespace.name, "-j", "address", "show"])
        let links = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
        var found: [Int32: Set<IPAddress>] = [:]
        for link in links {
            guard let index = link["ifindex"] as? Int else { continue }
            for address in link["addr_info"] as? [[String: Any]] ?? [] {
                guard address["tentative"] == nil, address["dadfailed"] == nil,
                    let local = (address["local"] as? String).flatMap(IPAddress.init)
                else { continue }
                found[Int32(index), default: []].insert(local)
            }
        }
        return found
    }

    /// Every flow's disagreement with its traffic, once pathmond had `within` to agree (and held it 300 ms: a
    /// verdict made from the routes alone, before the kernel's answers came, may meet it by chance and be corrected
    /// once they do). Counts in `settled` (by flow) the checks whose traffic settled the viability.
    ///
    /// The kernel changes its mind without a message (a route's expiry, a router's entry failing) while pathmond
    /// is given its time to agree: a check that disagrees takes the traffic's word again, once, and only the second
    /// disagreement counts.
    static func disagreements(
        _ flows: [TrafficFlow], _ sockets: RealSockets, settled: inout [Int: Int], within: Duration = .seconds(2)
    ) async throws -> [String] {
        let problems = try await disagreementsOnce(flows, sockets, settled: &settled, within: within)
        guard !problems.isEmpty else { return [] }
        var again: [Int: Int] = [:]
        return try await disagreementsOnce(flows, sockets, settled: &again, within: within)
    }

    private static func disagreementsOnce(
        _ flows: [TrafficFlow], _ sockets: RealSockets, settled: inout [Int: Int], within: Duration
    ) async throws -> [String] {
        let held = try addresses(sockets.namespace)
        var expectations: [(Expectation, own: RealSockets.Outcome, fresh: RealSockets.Outcome)] = []
        for flow in flows {
            var outcome = try expectation(for: flow, sockets, held: held)
            // A flow names no protocol, and an IPv6 multipath route hashes it: a datagram's leg then says nothing
            // of a flow's (a bound socket is held to its device whatever the leg).
            if let remote = flow.flow.remoteAddress, remote.family == .ipv6 {
                let source = flow.flow.isBoundToInterface ? nil : flow.flow.localAddress
                if source != nil, try dependsOnProtocol(sockets.namespace, remote, from: source) {
                    outcome.0.isViable = nil
                }
                if try dependsOnProtocol(sockets.namespace, remote, from: nil) { outcome.0.better = nil }
            }
            // Where the traffic and `ip route get` part ways about a new connection, pathmond (which asks the
            // kernel the same question) cannot agree with both: the traffic's word is not taken then, and it is
            // said. Seen once in the routing fidelity test, around an IPv6 default that had just expired.
            if case .sent(_, let name) = outcome.fresh, let remote = flow.flow.remoteAddress,
                let asked = try KernelMindTests.kernelDevice(sockets.namespace, "\(remote)"), asked != name
            {
                print("  a new connection to \(remote) left by \(name), ip route get says \(asked): not checked")
                outcome.0.better = nil
            }
            if outcome.0.isViable != nil { settled[flow.socket, default: 0] += 1 }
            print("  \(flow.label): its socket \(outcome.own), a new one \(outcome.fresh)")
            expectations.append(outcome)
        }
        func agreeing() -> Bool {
            zip(flows, expectations).allSatisfy { flow, outcome in
                flow.log.monitor.currentStatus.map { outcome.0.holds(for: $0) } ?? false
            }
        }
        let deadline = ContinuousClock.now + within
        var heldSince: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if agreeing() {
                let since = heldSince ?? .now
                heldSince = since
                if ContinuousClock.now - since >= .milliseconds(300) { break }
            } else {
                heldSince = nil
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return zip(flows, expectations).compactMap { flow, outcome in
            let status = flow.log.monitor.currentStatus
            if let status, outcome.0.holds(for: status) { return nil }
            let said =
                status.map { "\($0.isViable ? "viable" : "not viable"), better: \($0.betterInterface ?? "none")" }
                ?? "nothing"
            return
                "\(flow.label): its socket \(outcome.own), a new one \(outcome.fresh): \(outcome.0); pathmond says \(said)"
        }
    }

    /// Runs the steps (`ip` arguments), checking every flow against its traffic after each; every flow's traffic
    /// must settle its viability in at least `minimumSettled` steps, or the test proves little.
    static func follow(
        _ steps: [(String, [String])], _ flows: [TrafficFlow], _ sockets: RealSockets, minimumSettled: Int
    ) async throws {
        var settled: [Int: Int] = [:]
        for (name, commands) in steps {
            for command in commands { try sockets.namespace.ip(command) }
            print("real traffic, \(name):")
            let problems = try await disagreements(flows, sockets, settled: &settled)
            for problem in problems { Issue.record("\(name): \(problem)") }
        }
        for flow in flows {
            #expect(settled[flow.socket, default: 0] >= minimumSettled, "\(flow.label): traffic settled too little")
        }
    }
}

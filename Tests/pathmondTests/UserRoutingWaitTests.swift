// SPDX-License-Identifier: Apache-2.0
import Locking
import Logging
import PathModel
import Testing

@testable import pathmond

/// A client of a user whose routing the kernel has not been asked about (no client of that user watched before)
/// gets that user's path first, not the system's: its first value waits for the batch that asked the query set its
/// interest added, whatever the kernel answered. Before, the first reply (and a lone GetPath) was root's routing.
@Suite struct UserRoutingWaitTests {
    final class Recorder: Subscriber, Sendable {
        let interest: Interest
        let paths = Locked<[Path]>([])
        init(user: UInt32) {
            var parameters = PathParameters.unrestricted
            parameters.routingUser = user
            interest = .path(parameters)
        }
        func deliver(_ update: Update) { update.value.path.map { path in paths.withLock { $0.append(path) } } }
        var first: String? { paths.withLock { $0.first?.availableInterfaces.first?.name } }
    }

    /// What the hub handed to the kernel watcher, with each set's version.
    /// The hub's changes to the route queries, added up: the whole set after each, with its version.
    final class HandedOver: Sendable {
        let sets = Locked<[(Set<RouteQuery>, UInt64)]>([])
        var last: (Set<RouteQuery>, UInt64)? { sets.withLock { $0.last } }

        func record(_ change: FlowQueryChange, version: UInt64) {
            sets.withLock { sets in
                let current = sets.last?.0 ?? []
                sets.append((current.subtracting(change.removed).union(change.added), version))
            }
        }
    }

    static func link(_ index: Int32, _ name: String) -> Link {
        Link(
            index: index, name: name, flags: [.up, .running, .lowerUp], operState: .up, linkKind: nil,
            hardwareType: 1, device: .unknown)
    }

    static let snapshot = KernelSnapshot(
        links: [link(2, "eth0"), link(3, "eth1")],
        addresses: [
            InterfaceAddress(interfaceIndex: 2, address: IPAddress("10.0.0.2")!, prefixLength: 24),
            InterfaceAddress(interfaceIndex: 3, address: IPAddress("10.1.0.2")!, prefixLength: 24),
        ],
        routes: [
            DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: IPAddress("10.0.0.1")!),
            DefaultRoute(family: .ipv4, metric: 200, interfaceIndex: 3, gateway: IPAddress("10.1.0.1")!),
        ])

    /// The IPv4 probes as `user`, all sent out of `index`.
    static func probes(user: UInt32, via index: Int32) -> [RouteQuery: RouteDecision] {
        let gateway = IPAddress(index == 2 ? "10.0.0.1" : "10.1.0.1")!
        return Dictionary(
            uniqueKeysWithValues: RouteQuery.internetProbes(.ipv4, user: user).map {
                ($0, RouteDecision.via(interfaceIndex: index, gateway: gateway))
            })
    }

    /// A ready hub whose root goes out of eth0.
    static func readyHub(_ handedOver: HandedOver) -> PathHub {
        let hub = PathHub(
            evaluator: PathEvaluator(), logger: Logger(label: "test"),
            flowQueriesChanged: { handedOver.record($0, version: $1) })
        hub.apply([.snapshot(snapshot)])
        hub.apply([.routeDecisions(probes(user: 0, via: 2))])
        return hub
    }

    @Test func theFirstValueWaitsForTheUsersAnswers() throws {
        let handedOver = HandedOver()
        let hub = Self.readyHub(handedOver)
        let recorder = Recorder(user: 1000)
        #expect(hub.subscribe(recorder) == nil, "not the system's path as uid 1000's")
        let (queries, version) = try #require(handedOver.last)
        #expect(queries.isSuperset(of: RouteQuery.internetProbes(user: 1000)))

        // A batch that asked an older set does not end the wait.
        hub.apply([], queriesVersion: version - 1)
        #expect(recorder.paths.withLock { $0 }.isEmpty)

        var decisions = Self.probes(user: 0, via: 2)
        decisions.merge(Self.probes(user: 1000, via: 3)) { $1 }
        hub.apply([.routeDecisions(decisions)], queriesVersion: version)
        #expect(recorder.first == "eth1", "uid 1000's own routing first: \(recorder.paths.withLock { $0 })")
        #expect(recorder.paths.withLock { $0.count } == 1)
        #expect(hub.systemPath.availableInterfaces.first?.name == "eth0")

        // A second client of the same user is answered at once, from the known routing.
        let second = Recorder(user: 1000)
        let now = try #require(hub.subscribe(second))
        #expect(now.value.path?.availableInterfaces.first?.name == "eth1")
    }

    @Test func aKernelWithoutAnswersStillEndsTheWait() throws {
        let handedOver = HandedOver()
        let hub = Self.readyHub(handedOver)
        let recorder = Recorder(user: 1000)
        #expect(hub.subscribe(recorder) == nil)
        let (_, version) = try #require(handedOver.last)
        // The watcher asked, the kernel answered nothing (a failed look-up): the system's routing stands.
        hub.apply([], queriesVersion: version)
        #expect(recorder.first == "eth0")
    }

    @Test func aLoneGetPathIsTheUsersOwn() throws {
        let handedOver = HandedOver()
        let hub = Self.readyHub(handedOver)
        var parameters = PathParameters.unrestricted
        parameters.routingUser = 1000
        #expect(hub.pathIfKnown(for: parameters) == nil)
        let answer = Locked<[Path]>([])
        hub.whenKnown(.path(parameters)) { value in answer.withLock { $0.append(value.path!) } }
        #expect(answer.withLock { $0 }.isEmpty)
        let (queries, version) = try #require(handedOver.last)
        #expect(queries.isSuperset(of: RouteQuery.internetProbes(user: 1000)))

        var decisions = Self.probes(user: 0, via: 2)
        decisions.merge(Self.probes(user: 1000, via: 3)) { $1 }
        hub.apply([.routeDecisions(decisions)], queriesVersion: version)
        #expect(answer.withLock { $0.map { $0.availableInterfaces.first?.name } } == ["eth1"])
        // Answered, the waiter is gone, and with it the user's probes.
        #expect(hub.subscriberCount == 0)
        let (after, _) = try #require(handedOver.last)
        #expect(after.isDisjoint(with: RouteQuery.internetProbes(user: 1000)))
    }

    @Test func rootAndKnownUsersAreAnsweredAtOnce() throws {
        let handedOver = HandedOver()
        let hub = Self.readyHub(handedOver)
        #expect(hub.pathIfKnown(for: .unrestricted)?.availableInterfaces.first?.name == "eth0")
        let watcher = Recorder(user: 1000)
        _ = hub.subscribe(watcher)
        var decisions = Self.probes(user: 0, via: 2)
        decisions.merge(Self.probes(user: 1000, via: 3)) { $1 }
        hub.apply([.routeDecisions(decisions)], queriesVersion: try #require(handedOver.last).1)
        var parameters = PathParameters.unrestricted
        parameters.routingUser = 1000
        #expect(hub.pathIfKnown(for: parameters)?.availableInterfaces.first?.name == "eth1")
    }
}

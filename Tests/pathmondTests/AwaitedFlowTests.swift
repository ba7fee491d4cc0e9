// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import Testing

@testable import pathmond

/// A kernel change whose flows' route answers come in later slices (a thousand flows are asked 256 queries a turn):
/// a flow still waiting for its answers keeps its value, and is derived in the update that ends the wait, even when
/// its answers turn out unchanged. Before, every slice derived all flows (the first subscriber waited for a
/// thousand derivations), and a flow derived early from its old answers could be sent twice.
@Suite struct AwaitedFlowTests {
    static let link = Link(
        index: 2, name: "eth0", flags: [.up, .running, .lowerUp], operState: .up, linkKind: nil, hardwareType: 1,
        device: .unknown)
    static let address = InterfaceAddress(interfaceIndex: 2, address: IPAddress("192.0.2.10")!, prefixLength: 24)
    static let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!)
    static let flow = Flow(
        interfaceName: "eth0", localAddress: IPAddress("192.0.2.10")!, remoteAddress: IPAddress("203.0.113.7")!)

    @Test func aFlowWaitingForItsAnswersIsDerivedOnceTheWaitEnds() throws {
        let hub = PathHub(evaluator: PathEvaluator(), logger: Logger(label: "test"))
        let flow = Self.flow
        let queries = Set(flow.routeQueries)
        let viaEth0 = Dictionary(
            uniqueKeysWithValues: flow.routeQueries.map {
                ($0, RouteDecision.via(interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!))
            })
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address], routes: [Self.route]))])
        hub.apply([.routeDecisions(viaEth0)])
        let subscriber = RecordingFlowSubscriber(flow)
        let first = hub.subscribe(subscriber)
        guard case .flow(let initial) = first?.value else { throw Failure.notAFlow }
        #expect(initial.isViable)

        // eth0 loses its carrier; the flow's answers are to come in a later slice: nothing is sent yet.
        var down = Self.link
        down.flags = [.up]
        down.operState = .down
        hub.apply([.linkChanged(down)], awaiting: AwaitingQueries(queries))
        #expect(subscriber.statuses.isEmpty)

        // The last slice changed no answer (the kernel still says eth0): the flow is derived all the same.
        hub.apply([], awaiting: [])
        let statuses = subscriber.statuses
        #expect(statuses.count == 1 && statuses.first?.isViable == false, "\(statuses)")
    }

    /// Successive slices of one round share its order and move a position: a flow placed before the position is
    /// no longer waiting and is derived, one placed after still waits, whatever the hub remembered of the round.
    @Test func aFlowWaitsUntilTheRoundsPositionPassesIt() throws {
        let hub = PathHub(evaluator: PathEvaluator(), logger: Logger(label: "test"))
        let flow = Self.flow
        let other = RouteQuery(destination: IPAddress("198.51.100.1")!)
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address], routes: [Self.route]))])
        let subscriber = RecordingFlowSubscriber(flow)
        guard case .flow(let initial) = hub.subscribe(subscriber)?.value else { throw Failure.notAFlow }
        #expect(initial.isViable)

        // The flow's queries come after another's in the round; the first slice asked only that one.
        let order = FlowOrder([other] + flow.routeQueries)
        var down = Self.link
        down.flags = [.up]
        down.operState = .down
        hub.apply([.linkChanged(down)], awaiting: AwaitingQueries(order, from: 1))
        hub.apply([], awaiting: AwaitingQueries(order, from: 2))
        #expect(subscriber.statuses.isEmpty, "its last query is still to come")
        hub.apply([], awaiting: AwaitingQueries(order, from: 3))
        let statuses = subscriber.statuses
        #expect(statuses.count == 1 && statuses.first?.isViable == false, "\(statuses)")
    }

    /// A slice's answers that name a flow three times (its own two queries, and a new connection's query it shares
    /// with another flow to the same peer) derive it once: each subscriber gets one update.
    @Test func aSliceAnsweringAFlowManyTimesSendsOneUpdate() throws {
        let hub = PathHub(evaluator: PathEvaluator(), logger: Logger(label: "test"))
        let second = InterfaceAddress(interfaceIndex: 2, address: IPAddress("192.0.2.11")!, prefixLength: 24)
        var neighbour = Self.flow
        neighbour.localAddress = second.address
        hub.apply([
            .snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address, second], routes: [Self.route]))
        ])
        let subscribers = [RecordingFlowSubscriber(Self.flow), RecordingFlowSubscriber(neighbour)]
        for subscriber in subscribers {
            guard case .flow(let initial) = hub.subscribe(subscriber)?.value else { throw Failure.notAFlow }
            #expect(initial.isViable)
        }
        let queries = Self.flow.routeQueries + neighbour.routeQueries
        #expect(Set(queries).count == 3, "the two flows share their new connection's query")
        let nowhere = Dictionary(queries.map { ($0, RouteDecision.unroutable) }) { first, _ in first }
        hub.apply([.routeDecisions(nowhere)], answered: queries)
        for subscriber in subscribers {
            let statuses = subscriber.statuses
            #expect(statuses.map(\.isViable) == [false], "\(statuses)")
        }
    }

    enum Failure: Error { case notAFlow }
}

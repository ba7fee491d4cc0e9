// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import Testing

@testable import pathmond

/// An update writes each distinct flow status once and shares its bytes between the flows that have it: every
/// subscriber still gets the reply of its own status, whichever flow's reply was written first.
@Suite struct SharedFlowReplyTests {
    static let link = Link(
        index: 2, name: "eth0", flags: [.up, .running, .lowerUp], operState: .up, linkKind: nil, hardwareType: 1,
        device: .unknown)
    static let addresses = ["192.0.2.10", "192.0.2.11"].map {
        InterfaceAddress(interfaceIndex: 2, address: IPAddress($0)!, prefixLength: 24)
    }
    static let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!)

    static func flow(from local: String, to remote: String) -> Flow {
        Flow(interfaceName: "eth0", localAddress: IPAddress(local)!, remoteAddress: IPAddress(remote)!)
    }

    @Test func flowsChangedToDifferentStatusesInOneUpdateEachGetTheirOwnReply() throws {
        let hub = PathHub(evaluator: PathEvaluator(), logger: Logger(label: "test"))
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: Self.addresses, routes: [Self.route]))])
        // Two flows that lose their route, and between them one that gains it: one update, two statuses.
        let losing = [
            Self.flow(from: "192.0.2.10", to: "203.0.113.7"), Self.flow(from: "192.0.2.10", to: "203.0.113.8"),
        ]
        let gaining = Self.flow(from: "192.0.2.11", to: "203.0.113.9")
        func decisions(_ flows: [Flow], _ decision: RouteDecision) -> [RouteQuery: RouteDecision] {
            Dictionary(flows.flatMap(\.routeQueries).map { ($0, decision) }) { first, _ in first }
        }
        let viaEth0 = RouteDecision.via(interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!)
        hub.apply([.routeDecisions(decisions([gaining], .unroutable))])

        let subscribers = [
            RecordingFlowSubscriber(losing[0]), RecordingFlowSubscriber(gaining), RecordingFlowSubscriber(losing[1]),
        ]
        var initial: [Bool] = []
        for subscriber in subscribers {
            guard case .flow(let status) = hub.subscribe(subscriber)?.value else { throw Failure.notAFlow }
            initial.append(status.isViable)
        }
        #expect(initial == [true, false, true])

        let answers = decisions(losing, .unroutable).merging(decisions([gaining], viaEth0)) { first, _ in first }
        hub.apply([.routeDecisions(answers)], answered: Array(answers.keys))

        var viable: [Bool] = []
        for subscriber in subscribers {
            let updates = subscriber.updates.withLock { $0 }
            guard updates.count == 1, case .flow(let status) = updates[0].value else { throw Failure.notAFlow }
            #expect(updates[0].streamedReply == StreamedReplyWriter.flowReply(WireFlowStatus(status)))
            viable.append(status.isViable)
        }
        #expect(viable == [false, true, false])
    }

    enum Failure: Error { case notAFlow }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The bounded history and the causes built from kernel batches: pure values, no clock.
@Suite struct PathHistoryTests {
    static let up = PathSummary(status: .satisfied, interfaces: ["eth0"], supportsIPv4: true)
    static let down = PathSummary(status: .unsatisfied, unsatisfiedReason: .noCarrier)

    static func filled(_ count: Int, capacity: Int) -> PathHistory {
        var history = PathHistory(capacity: capacity)
        for index in 0..<count {
            history.append(
                wallMicroseconds: Int64(index) * 1_000_000, monotonicMicroseconds: UInt64(index),
                before: index.isMultiple(of: 2) ? up : down, after: index.isMultiple(of: 2) ? down : up,
                cause: .resolverChange)
        }
        return history
    }

    @Test(arguments: [(0, 3), (2, 3), (3, 3), (4, 3), (10, 3), (2500, 1000), (1, 1), (5, 1)])
    func keepsTheNewestUpToTheBound(_ count: Int, _ capacity: Int) {
        let history = Self.filled(count, capacity: capacity)
        #expect(history.count == min(count, capacity))
        let expected = (max(0, count - capacity)..<count).map { UInt64($0 + 1) }
        #expect(history.entries.map(\.sequence) == expected)
        #expect(history.newest?.sequence == (count == 0 ? nil : UInt64(count)))
        #expect(history.nextSequence == UInt64(count + 1))
    }

    @Test func continuesTheSequenceFromStoredEntries() {
        let stored = Self.filled(5, capacity: 10).entries
        var history = PathHistory(capacity: 3, entries: stored)
        #expect(history.entries.map(\.sequence) == [3, 4, 5])
        let entry = history.append(
            wallMicroseconds: 9, monotonicMicroseconds: 9, before: Self.up, after: Self.down, cause: .unspecified)
        #expect(entry.sequence == 6)
        #expect(history.entries.map(\.sequence) == [4, 5, 6])
    }

    @Test func shrinkingDropsTheOldestAndGrowingKeepsAll() {
        var history = Self.filled(7, capacity: 5)
        history.setCapacity(2)
        #expect(history.entries.map(\.sequence) == [6, 7])
        history.setCapacity(4)
        history.append(
            wallMicroseconds: 0, monotonicMicroseconds: 0, before: Self.up, after: Self.down, cause: .unspecified)
        #expect(history.entries.map(\.sequence) == [6, 7, 8])
    }

    @Test func queriesFilterByTimeInterfaceAndLimit() {
        var history = PathHistory(capacity: 10)
        let wifi = PathSummary(status: .satisfied, interfaces: ["wlan0"])
        history.append(
            wallMicroseconds: 100, monotonicMicroseconds: 1, before: Self.down, after: Self.up, cause: .unspecified)
        history.append(
            wallMicroseconds: 200, monotonicMicroseconds: 2, before: Self.up, after: wifi, cause: .unspecified)
        history.append(
            wallMicroseconds: 300, monotonicMicroseconds: 3, before: wifi, after: wifi,
            cause: PathChangeCause(kind: .kernel, interfaces: ["wwan0"]))
        #expect(history.entries(matching: PathHistoryQuery(sinceWallMicroseconds: 200)).map(\.sequence) == [2, 3])
        #expect(history.entries(matching: PathHistoryQuery(interface: "eth0")).map(\.sequence) == [1, 2])
        #expect(history.entries(matching: PathHistoryQuery(interface: "wwan0")).map(\.sequence) == [3])
        #expect(history.entries(matching: PathHistoryQuery(limit: 2)).map(\.sequence) == [2, 3])
        #expect(history.entries(matching: PathHistoryQuery(limit: 0)).isEmpty)
        #expect(history.entries(matching: PathHistoryQuery(interface: "eth1")).isEmpty)
    }

    @Test func kernelBatchNamesTablesAndInterfacesOnce() {
        let link = makeLink(3, "eth0")
        let route = DefaultRoute(family: .ipv4, metric: 100, interfaceIndex: 4, gateway: ip("192.0.2.1"))
        let address = InterfaceAddress(interfaceIndex: 3, address: ip("192.0.2.10"), prefixLength: 24)
        let cause = PathChangeCause.kernel([
            .routeAdded(route, replacing: false), .linkChanged(link), .addressAdded(address), .routeRemoved(route),
        ])
        #expect(cause.kind == .kernel)
        #expect(cause.kernelTables == [.link, .address, .route])
        #expect(cause.interfaceIndices == [3, 4])
        // Index 4 is not named by the batch: names come later, from what the hub knows.
        #expect(cause.interfaces.isEmpty)
        let named = cause.named { $0 == 4 ? "wwan0" : nil }
        #expect(named.interfaces == ["#3", "wwan0"])
        #expect(named.description == "kernel: link, address, route on #3, wwan0")
    }

    @Test func kernelBatchOfLinksNamesThemAndRoutingDecisionsNameTheirCause() {
        // Links only, out of order and repeated: indices sorted once, each named by its latest message.
        let links = PathChangeCause.kernel([
            .linkChanged(makeLink(9, "old9")), .linkChanged(makeLink(2, "eth2")), .linkChanged(makeLink(9, "wlan9")),
        ])
        #expect(links.kernelTables == [.link])
        #expect(links.interfaceIndices == [2, 9])
        #expect(links.interfaces == ["eth2", "wlan9"])
        // A new answer alone was a route the model does not keep; beside a rule, the rule moved it.
        let answers = KernelEvent.routeDecisions([:], dropped: [])
        #expect(PathChangeCause.kernel([answers]).kernelTables == [.route])
        #expect(PathChangeCause.kernel([answers, .rulesChanged]).kernelTables == [.rule])
        // The tables in their declared order, whatever the events' order; a nexthop gone names no interface.
        let mixed = PathChangeCause.kernel([.rulesChanged, .nexthopRemoved(id: 5), .linkRemoved(index: 1)])
        #expect(mixed.kernelTables == [.link, .route, .rule])
        #expect(mixed.interfaceIndices == [1])
        #expect(mixed.interfaces.isEmpty)
    }

    @Test func aSnapshotIsAResync() {
        let cause = PathChangeCause.kernel([.linkRemoved(index: 2), .snapshot(KernelSnapshot())])
        #expect(cause.kind == .resync)
    }

    @Test func causesReadAsSentences() {
        #expect(
            PathChangeCause.policy(network: "wifi:Home", userID: 1000, setting: "expensive").description
                == "policy: wifi:Home expensive by uid 1000")
        var detected = PathChangeCause.detected(.dhcpMetered, interfaces: [7])
        detected.interfaces = ["wlan0"]
        #expect(detected.description == "detection: DHCP metered option on wlan0")
        #expect(PathChangeCause.configurationReload.description == "configuration reloaded")
        var noInterface = PathChangeCause.detected(.linkQuality, interfaces: [])
        #expect(noInterface.description == "detection: link quality")
        noInterface.detection = nil
        #expect(noInterface.description == "detection: change")
        // Spelled into the string's own room: multi-byte names and every table, counted and copied alike.
        var kernel = PathChangeCause.kernel([.linkRemoved(index: 2)])
        kernel.kernelTables = PathChangeCause.KernelTable.allCases
        kernel.interfaces = ["wlan-café", "eth0", "wwan0"]
        let tables = PathChangeCause.KernelTable.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(kernel.description == "kernel: \(tables) on wlan-café, eth0, wwan0")
        kernel.kernelTables = []
        kernel.interfaces = []
        #expect(kernel.description == "kernel: change")
        #expect(Self.up.description == "satisfied via eth0 (IPv4)")
        #expect(Self.down.description == "unsatisfied: noCarrier")
    }
}

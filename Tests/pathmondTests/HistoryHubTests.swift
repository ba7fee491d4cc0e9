// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import Testing

@testable import pathmond

/// The hub records a history entry, with its cause, exactly when the system path changes, and hands it to
/// followers; everything else leaves the history alone.
@Suite struct HistoryHubTests {
    final class Collector: HistoryFollower, @unchecked Sendable {
        // @unchecked: the tests deliver from their own thread only.
        var entries: [PathHistoryEntry] = []
        func deliver(_ entry: PathHistoryEntry) { entries.append(entry) }
    }

    static func hub() -> PathHub {
        PathHub(evaluator: PathEvaluator(), logger: Logger(label: "test"))
    }

    static let link = Link(
        index: 2, name: "eth0", flags: [.up, .running, .lowerUp], operState: .up, linkKind: nil, hardwareType: 1,
        device: .unknown)
    static let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!)
    static let address = InterfaceAddress(
        interfaceIndex: 2, address: IPAddress("192.0.2.10")!, prefixLength: 24)

    @Test func recordsChangesWithTheirCausesInOrder() throws {
        let hub = Self.hub()
        let follower = Collector()
        #expect(hub.history.entries(matching: PathHistoryQuery(), follower: follower).isEmpty)
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address]))], cause: nil)
        hub.apply([.routeAdded(Self.route, replacing: false)])
        // Not a change of the system path: nothing recorded.
        hub.updateContext(cause: .resolverChange) { _ in }
        hub.updateContext(cause: .policy(network: "wired:x", userID: 1000, setting: "expensive")) {
            $0.meteredInterfaces = [2]
        }
        hub.apply([.routeRemoved(Self.route)])
        let entries = hub.history.entries(matching: PathHistoryQuery())
        #expect(entries.map(\.cause.kind) == [.resync, .kernel, .policy, .kernel])
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries[1].cause.interfaces == ["eth0"])
        #expect(entries[1].cause.kernelTables == [.route])
        #expect(entries[1].after.interfaces == ["eth0"])
        #expect(entries[2].after.isExpensive)
        #expect(entries[2].cause.userID == 1000)
        // A route of a link that is still there: named from the interfaces after the change.
        #expect(entries[3].cause.interfaces == ["eth0"])
        #expect(entries[3].after.status == .unsatisfied)
        #expect(follower.entries == entries)
        #expect(hub.counters.pathChanges.load(ordering: .relaxed) == 4)
        #expect(entries.allSatisfy { $0.monotonicMicroseconds > 0 && $0.wallMicroseconds > 0 })
    }

    /// Flips reuse the newest entry's summaries; what is recorded is still each path's bounded summary, a path of
    /// more interfaces than an entry keeps included.
    @Test func flipsRecordEachPathsOwnSummary() {
        let log = HistoryLog()
        func path(_ names: [String]) -> Path {
            Path(
                status: names.isEmpty ? .unsatisfied : .satisfied,
                unsatisfiedReason: names.isEmpty ? .noDefaultRoute : nil,
                availableInterfaces: names.enumerated().map {
                    PathInterface(index: Int32($0.offset + 2), name: $0.element, kind: .wired, isExpensive: false)
                }, supportsIPv4: !names.isEmpty)
        }
        let many = (0..<(HistoryEntryBounds.maximumInterfaces + 5)).map { "veth\($0)" }
        let paths = [path([]), path(["eth0"]), path([]), path(["eth0"]), path(many), path(many), path(["eth0"])]
        for (before, after) in zip(paths, paths.dropFirst()) {
            _ = log.record(before: before, after: after, cause: .unspecified)
        }
        let entries = log.entries(matching: PathHistoryQuery())
        #expect(entries.count == paths.count - 1)
        for (entry, (before, after)) in zip(entries, zip(paths, paths.dropFirst())) {
            #expect(entry.before == HistoryEntryBounds.bounded(PathSummary(before)))
            #expect(entry.after == HistoryEntryBounds.bounded(PathSummary(after)))
        }
        #expect(entries[4].after.interfaces.count == HistoryEntryBounds.maximumInterfaces)
    }

    @Test func aRemovedLinkIsNamedByThePathItLeft() {
        let hub = Self.hub()
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address], routes: [Self.route]))])
        hub.apply([.linkRemoved(index: 2)])
        #expect(hub.history.newest?.cause.interfaces == ["eth0"])
        #expect(hub.history.newest?.cause.description == "kernel: link on eth0")
    }

    @Test func unfollowedGetsNothingMore() {
        let hub = Self.hub()
        let follower = Collector()
        _ = hub.history.entries(matching: PathHistoryQuery(), follower: follower)
        hub.history.unfollow(follower)
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address], routes: [Self.route]))])
        #expect(follower.entries.isEmpty)
        #expect(hub.history.newest != nil)
    }

    @Test func theFileIsBehindOnlyAfterAChange() {
        let hub = Self.hub()
        #expect(!hub.history.isBehind)
        #expect(hub.history.takeEntriesToWrite(fileHolds: 0) == nil)
        hub.apply([.snapshot(KernelSnapshot(links: [Self.link], addresses: [Self.address], routes: [Self.route]))])
        #expect(hub.history.isBehind)
        // A file that ends with a whole line is appended to; one of unknown state is written whole.
        #expect(hub.history.takeEntriesToWrite(fileHolds: 0) == .append([hub.history.newest!]))
        #expect(hub.history.takeEntriesToWrite(fileHolds: 0) == nil)
        hub.apply([.routeRemoved(Self.route)])
        #expect(hub.history.takeEntriesToWrite(fileHolds: nil)?.entries.map(\.sequence) == [1, 2])
    }

    /// A written array comes back emptied as the room for the next entries: each write holds only what was
    /// recorded since the previous one, whichever array it is in.
    @Test func recycledRoomHoldsOnlyNewEntries() throws {
        let log = HistoryLog()
        var sequences: [[UInt64]] = []
        for round in 0..<4 {
            for _ in 0...round {
                _ = log.record(
                    before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
            }
            let write = try #require(log.takeEntriesToWrite(fileHolds: 0))
            sequences.append(write.entries.map(\.sequence))
            log.recycle(write)
        }
        #expect(sequences == [[1], [2, 3], [4, 5, 6], [7, 8, 9, 10]])
        // A rewrite's array is not kept: the next write still holds only the newest.
        _ = log.record(before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
        log.recycle(try #require(log.takeEntriesToWrite(fileHolds: nil)))
        _ = log.record(before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
        #expect(log.takeEntriesToWrite(fileHolds: 0)?.entries.map(\.sequence) == [12])
    }

    /// Entries the writer has not taken cost no more than the history: past the bound, a whole rewrite is owed.
    @Test func aWriterFarBehindGetsOneRewriteOfTheNewest() {
        let log = HistoryLog(history: PathHistory(capacity: 3))
        for _ in 0..<3 {
            _ = log.record(before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
        }
        #expect(log.takeEntriesToWrite(fileHolds: 2) == .append(log.entries(matching: PathHistoryQuery())))
        for _ in 0..<3 {
            _ = log.record(before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
        }
        // 5 + 3 entries in the file would be more than twice the bound: compacted instead.
        #expect(log.takeEntriesToWrite(fileHolds: 5) == .rewrite(log.entries(matching: PathHistoryQuery())))
        for _ in 0..<7 {
            _ = log.record(before: .unsatisfied(.noCarrier), after: Path(status: .satisfied), cause: .resolverChange)
        }
        #expect(log.takeEntriesToWrite(fileHolds: 0) == .rewrite(log.entries(matching: PathHistoryQuery())))
        #expect(log.takeEntriesToWrite(fileHolds: 3) == nil)
    }
}

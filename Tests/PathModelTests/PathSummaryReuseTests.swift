// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// A recorder reuses the newest entry's summary of a path instead of making it again: only when it is exactly the
/// summary `PathSummary(path)` makes.
@Suite struct PathSummaryReuseTests {
    static let wired = PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: false)
    static let wireless = PathInterface(index: 3, name: "wlan0", kind: .wifi, isExpensive: true)
    static let both = Path(
        status: .satisfied, availableInterfaces: [wired, wireless], isExpensive: false, supportsIPv4: true,
        supportsIPv6: true)
    static let none = Path(status: .unsatisfied, unsatisfiedReason: .noDefaultRoute)

    @Test func aSummaryTellsItsOwnPath() {
        #expect(PathSummary(Self.both).summarizes(Self.both))
        #expect(PathSummary(Self.none).summarizes(Self.none))
        #expect(!PathSummary(Self.both).summarizes(Self.none))
    }

    /// Each field the summary keeps, changed alone, makes it another path's; what it does not keep (gateways, DNS,
    /// kinds) does not.
    @Test func everyKeptFieldCounts() {
        let summary = PathSummary(Self.both)
        var changes: [(inout Path) -> Void] = [
            { $0.status = .unsatisfied }, { $0.unsatisfiedReason = .noCarrier }, { $0.isExpensive = true },
            { $0.isConstrained = true }, { $0.supportsIPv4 = false }, { $0.supportsIPv6 = false },
            { $0.availableInterfaces.reverse() }, { $0.availableInterfaces.removeLast() },
            { $0.availableInterfaces.append(Self.wired) }, { $0.availableInterfaces[1].name = "wlan1" },
        ]
        for change in changes {
            var path = Self.both
            change(&path)
            #expect(!summary.summarizes(path))
            #expect(PathSummary(path).summarizes(path))
        }
        changes = [
            { $0.supportsDNS = true }, { $0.gateways = [IPAddress("10.0.0.1")!] },
            { $0.availableInterfaces[0].kind = .cellular },
        ]
        for change in changes {
            var path = Self.both
            change(&path)
            #expect(summary.summarizes(path))
        }
    }

    /// The newest entry's after, else its before; nothing from older entries or when neither is the path's.
    @Test func theNewestEntrySummarizesTheFlip() {
        var history = PathHistory(capacity: 4)
        #expect(history.newestSummary(of: Self.both) == nil)
        let up = PathSummary(Self.both)
        let down = PathSummary(Self.none)
        history.append(wallMicroseconds: 1, monotonicMicroseconds: 1, before: down, after: up, cause: .unspecified)
        #expect(history.newestSummary(of: Self.both) == up)
        #expect(history.newestSummary(of: Self.none) == down)
        let other = PathSummary(status: .unsatisfied, unsatisfiedReason: .noCarrier)
        history.append(wallMicroseconds: 2, monotonicMicroseconds: 2, before: up, after: other, cause: .unspecified)
        #expect(history.newestSummary(of: Self.both) == up)
        #expect(history.newestSummary(of: Self.none) == nil)
    }
}

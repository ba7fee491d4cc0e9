// SPDX-License-Identifier: Apache-2.0
/// One subscriber set's figures over the measured changes: when the first and the last subscriber were woken, and
/// what each got. pathmond's subscribers and the raw fan-out's socketpairs are tallied alike.
struct FanOutTally {
    var first: [UInt64] = []
    var last: [UInt64] = []
    var misses = 0
    var wrongContent = 0
    var extraUpdates = 0

    /// One change: `stamps` (0 where a subscriber was not woken in time) after `t0`, the frames each subscriber then
    /// held, which must end in `expected`, and the updates that came before the change (none were asked for).
    mutating func record(t0: UInt64, stamps: [UInt64], frames: [[[UInt8]]], leftovers: Int, expected: String) {
        extraUpdates += leftovers
        let arrived = stamps.filter { $0 != 0 }
        if arrived.count == stamps.count, let earliest = arrived.min(), let latest = arrived.max() {
            // An update stamped before t0 was a leftover: it reads as 0 rather than wrapping around.
            first.append(earliest - min(earliest, t0))
            last.append(latest - min(latest, t0))
        } else {
            misses += 1
        }
        for received in frames {
            if let newest = received.last, !newest.containsCompact(expected) { wrongContent += 1 }
            extraUpdates += max(0, received.count - 1)
        }
    }

    var summary: String {
        "changes measured: \(last.count + misses), not every subscriber reached in time: \(misses), "
            + "wrong content: \(wrongContent), extra updates: \(extraUpdates)"
    }
}

extension SubscriberSet {
    /// The updates every subscriber holds now, counted and thrown away: anything before a change was not asked for.
    func discardLeftovers() -> Int {
        drain().reduce(0) { $0 + $1.count }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// One subscriber set's figures over the measured changes: when the first and the last subscriber were woken, and
/// what each got. pathmond's subscribers and the raw fan-out's are tallied alike.
struct FanOutTally {
    var first: [UInt64] = []
    var last: [UInt64] = []
    var misses = 0
    var wrongContent = 0
    var extraUpdates = 0

    /// One change: when its subscribers were woken after `t0` (every one, or it is a miss), the updates whose
    /// newest frame lacked what the change should say, those past one per subscriber, and the updates that came
    /// before the change (none were asked for). The workers count the content (`SubscriberWorker.drained`).
    mutating func record(t0: UInt64, arrivals: WorkerArrivals, leftovers: Int, wrongContent: Int, extraUpdates: Int) {
        self.extraUpdates += leftovers + extraUpdates
        self.wrongContent += wrongContent
        if arrivals.arrived == arrivals.count {
            // An update stamped before t0 was a leftover: it reads as 0 rather than wrapping around.
            first.append(arrivals.earliest - min(arrivals.earliest, t0))
            last.append(arrivals.latest - min(arrivals.latest, t0))
        } else {
            misses += 1
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

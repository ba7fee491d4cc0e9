// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Seeded random traffic over interfaces that change networks, are removed and re-created, and are read as the
/// daemon reads them (before a key changes, and on the timer). After every step the meter's book equals a
/// reference that counts each byte where it was sent: to the network the interface was on, from its first
/// reading on that network (or from creation when it replaces a former interface of the same name and network),
/// and loses only the bytes a removed interface sent after its last reading.
@Suite struct UsageMeterOracleTests {
    static let seeds: [UInt64] = [1, 2, 3, 7, 42, 1_234_567, 0xDEAD_BEEF, 20_261_129]
    static let keys: [NetworkKey] = ["wired:02:00:00:00:00:01", "wifi:Home", "cellular:abc123"].map {
        NetworkKey($0)!
    }

    /// One interface name's life as the reference sees it.
    struct Slot {
        var name: String
        var index: Int32
        var kernel = ByteCounts.zero
        var key: NetworkKey?
        /// Read since it gained its key: its bytes count until the next reading.
        var counting = false
        /// Not yet read since it was created.
        var fresh = true
        var open = ByteCounts.zero
        /// The kernel's counters at the last reading, and whether they were reset since.
        var lastRead = ByteCounts.zero
        var resetSinceReading = false
        /// The networks of removed interfaces of this name not matched yet, oldest first.
        var formerKeys: [NetworkKey] = []
    }

    struct Reference {
        var expected: [NetworkKey: [CalendarDay: ByteCounts]] = [:]

        mutating func add(_ counts: ByteCounts, to key: NetworkKey, on day: CalendarDay) {
            guard counts != .zero else { return }
            expected[key, default: [:]][day, default: .zero] += counts
        }

        mutating func read(_ slot: inout Slot, keyFromNow: NetworkKey?, day: CalendarDay) {
            if slot.counting, let key = slot.key {
                // A reset is known only by a counter below the last reading; one that grew past it again by the
                // next reading is counted from that reading (the documented limit: under one index a live reset
                // does not happen, the kernel makes a new index).
                let detectable = !slot.kernel.isAtLeast(slot.lastRead)
                let counted =
                    !slot.resetSinceReading || detectable ? slot.open : slot.kernel.minus(slot.lastRead)
                add(counted, to: key, on: day)
            } else if slot.fresh, let keyFromNow, let match = slot.formerKeys.firstIndex(of: keyFromNow) {
                add(slot.kernel, to: keyFromNow, on: day)
                slot.formerKeys.remove(at: match)
            }
            slot.fresh = false
            slot.open = .zero
            slot.lastRead = slot.kernel
            slot.resetSinceReading = false
            slot.key = keyFromNow
            slot.counting = keyFromNow != nil
        }
    }

    @Test(arguments: seeds)
    func theMeterCountsEveryByteWhereItWasSent(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var meter = UsageMeter()
        var reference = Reference()
        var nextIndex: Int32 = 10
        var slots = (0..<3).map { slot -> Slot in
            nextIndex += 1
            return Slot(name: "eth\(slot)", index: nextIndex)
        }
        var day = CalendarDay(year: 2026, month: 11, day: 27)
        var removals = 0
        for _ in 0..<600 {
            let slot = random.below(slots.count)
            switch random.below(100) {
            case 0..<45:
                let counts = ByteCounts(
                    sent: UInt64(random.below(1_000_000)), received: UInt64(random.below(5_000_000)))
                slots[slot].kernel += counts
                if slots[slot].counting { slots[slot].open += counts }
            case 45..<60:
                // The network changes: the daemon reads before the new key applies.
                let key = random.chance(25) ? nil : random.pick(Self.keys)
                let reading = CounterReading(
                    index: slots[slot].index, name: slots[slot].name, counters: slots[slot].kernel)
                meter.record(reading, keyFromNow: key, on: day)
                reference.read(&slots[slot], keyFromNow: key, day: day)
            case 60..<80:
                // The timer reads every counted interface.
                for index in meter.counted {
                    let position = slots.firstIndex { $0.index == index }!
                    let slotNow = slots[position]
                    meter.record(
                        CounterReading(index: index, name: slotNow.name, counters: slotNow.kernel),
                        keyFromNow: slotNow.key, on: day)
                    reference.read(&slots[position], keyFromNow: slotNow.key, day: day)
                }
            case 80..<88 where removals < UsageMeter.formerKept - 4:
                // Removed and created again: a new index, counters from zero, no network until identified.
                removals += 1
                meter.removed(index: slots[slot].index)
                if slots[slot].counting, let key = slots[slot].key { slots[slot].formerKeys.append(key) }
                nextIndex += 1
                slots[slot] = Slot(name: slots[slot].name, index: nextIndex, formerKeys: slots[slot].formerKeys)
            case 88..<92:
                day = day.advanced(by: 1)
            default:
                // The kernel's counters reset under the same index: what was sent since the last reading is lost.
                slots[slot].kernel = .zero
                slots[slot].resetSinceReading = true
                if slots[slot].counting { slots[slot].open = .zero }
            }
            #expect(meter.book.days == reference.expected)
            // The timer's cheap question agrees with the list it would read.
            #expect(meter.isCounting == !meter.counted.isEmpty)
            if meter.book.days != reference.expected { return }
        }
        #expect(!reference.expected.isEmpty)
    }

    @Test func severalInterfacesOfOneNetworkAddUp() {
        var meter = UsageMeter()
        let key = Self.keys[0]
        let day = CalendarDay(number: 20_000)
        for index: Int32 in [1, 2] {
            meter.record(CounterReading(index: index, name: "eth\(index)", counters: .zero), keyFromNow: key, on: day)
        }
        meter.record(
            CounterReading(index: 1, name: "eth1", counters: ByteCounts(sent: 10, received: 20)), keyFromNow: key,
            on: day)
        meter.record(
            CounterReading(index: 2, name: "eth2", counters: ByteCounts(sent: 1, received: 2)), keyFromNow: key, on: day
        )
        #expect(meter.book.days[key]?[day] == ByteCounts(sent: 11, received: 22))
    }

    @Test func aRestoredInterfaceCountsTheDowntimeOnlyOnTheSameNetwork() {
        let day = CalendarDay(number: 20_000)
        let home = Self.keys[1]
        let saved = UsageMeter.Baseline(
            index: 3, name: "wlan0", counters: ByteCounts(sent: 100, received: 1_000), key: home, isFormer: false)
        var same = UsageMeter(restored: [saved])
        #expect(same.counted.isEmpty)
        #expect(!same.isCounting)
        same.record(
            CounterReading(index: 3, name: "wlan0", counters: ByteCounts(sent: 150, received: 1_500)), keyFromNow: home,
            on: day)
        #expect(same.book.total(of: home, in: day..<day.advanced(by: 1)) == ByteCounts(sent: 50, received: 500))
        #expect(same.counted == [3])
        #expect(same.isCounting)

        var moved = UsageMeter(restored: [saved])
        moved.record(
            CounterReading(index: 3, name: "wlan0", counters: ByteCounts(sent: 150, received: 1_500)),
            keyFromNow: Self.keys[2], on: day)
        #expect(moved.book.days.isEmpty)

        // A reboot: the same index and name, counters below the saved ones, counted from zero.
        var rebooted = UsageMeter(restored: [saved])
        rebooted.record(
            CounterReading(index: 3, name: "wlan0", counters: ByteCounts(sent: 7, received: 9)), keyFromNow: home,
            on: day)
        #expect(rebooted.book.days[home]?[day] == ByteCounts(sent: 7, received: 9))

        // Re-created while pathmond was stopped: a new index for the name, from zero.
        var recreated = UsageMeter(restored: [saved])
        recreated.record(
            CounterReading(index: 8, name: "wlan0", counters: ByteCounts(sent: 5, received: 6)), keyFromNow: home,
            on: day)
        #expect(recreated.book.days[home]?[day] == ByteCounts(sent: 5, received: 6))
        #expect(recreated.baselines.keys.sorted() == [8])
    }

    @Test func bytesWithoutANetworkAreNotCounted() {
        var meter = UsageMeter()
        let day = CalendarDay(number: 20_000)
        meter.record(
            CounterReading(index: 1, name: "eth0", counters: ByteCounts(sent: 5, received: 5)), keyFromNow: nil, on: day
        )
        meter.record(
            CounterReading(index: 1, name: "eth0", counters: ByteCounts(sent: 9, received: 9)),
            keyFromNow: Self.keys[0], on: day)
        #expect(meter.book.days.isEmpty)
        #expect(meter.counted == [1])
        meter.record(
            CounterReading(index: 1, name: "eth0", counters: ByteCounts(sent: 10, received: 19)), keyFromNow: nil,
            on: day)
        #expect(meter.book.days[Self.keys[0]]?[day] == ByteCounts(sent: 1, received: 10))
        #expect(meter.counted.isEmpty)
    }
}

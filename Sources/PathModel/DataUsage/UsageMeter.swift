// SPDX-License-Identifier: Apache-2.0
/// Turns readings of interfaces' counters into usage per network: the attribution rule, apart from any clock or
/// socket. The caller reads an interface's counters whenever the network on it may change (before the new key
/// applies) and on a slow timer while it has one; each reading's delta since the last goes to the key the
/// interface had over that interval.
///
/// - A counter that went back (either direction) was reset: the interface was re-created under the same index,
///   or the machine rebooted; the new value is the delta from zero.
/// - Bytes are counted while a network is attached: from the first reading after an interface gains a key, not
///   before (DHCP, or traffic from before pathmond knew the network).
/// - An interface re-created with a new index (a modem that reconnects, a USB tether plugged again) whose first
///   reading finds a former one of the same name on the same network counts from zero: its bytes since creation.
/// - Several interfaces of one network add up: the book is keyed by network, not interface.
public struct UsageMeter: Sendable, Hashable {
    /// The last reading of an interface and the network its bytes go to until the next.
    public struct Baseline: Sendable, Hashable {
        public var index: Int32
        public var name: String
        public var counters: ByteCounts
        public var key: NetworkKey
        /// Not seen in this run: restored from the state file, or its interface was removed. It matches an
        /// interface only on the same name and the same network.
        public var isFormer: Bool

        public init(index: Int32, name: String, counters: ByteCounts, key: NetworkKey, isFormer: Bool) {
            self.index = index
            self.name = name
            self.counters = counters
            self.key = key
            self.isFormer = isFormer
        }
    }

    public private(set) var book: UsageBook
    /// Live interfaces with a key, by index, and former ones (`isFormer`), at most `formerKept`.
    public private(set) var baselines: [Int32: Baseline]

    /// Live interfaces read while they had no network: their next reading on one only starts counting, even when a
    /// former interface of the same name was on that network (it is not a re-creation: it was seen since).
    public private(set) var readWithoutNetwork: Set<Int32> = []

    /// Former interfaces remembered: enough for a machine's modems and tethers, bounded against churn.
    public static let formerKept = 32

    /// `restored`: the baselines a previous run saved; they all become former ones.
    public init(book: UsageBook = UsageBook(), restored: [Baseline] = []) {
        self.book = book
        baselines = [:]
        for var baseline in restored.prefix(Self.formerKept) {
            baseline.isFormer = true
            baselines[baseline.index] = baseline
        }
    }

    /// The indexes of the live interfaces being counted: the ones a timer must read.
    public var counted: [Int32] { baselines.values.filter { !$0.isFormer }.map(\.index).sorted() }

    /// Whether a live interface is counted (`counted` is not empty), without building the list: what the timer's
    /// arming asks after every reading.
    public var isCounting: Bool { baselines.values.contains { !$0.isFormer } }

    /// The network a live interface's bytes go to now.
    public func key(of index: Int32) -> NetworkKey? {
        baselines[index].flatMap { $0.isFormer ? nil : $0.key }
    }

    /// Counts `reading`'s delta since the interface's last reading to the network it had (on `day`), then
    /// remembers that it is on `keyFromNow` (nil: no network, not counted). Returns the bytes counted and the
    /// network they went to, if any.
    @discardableResult
    public mutating func record(
        _ reading: CounterReading, keyFromNow: NetworkKey?, on day: CalendarDay
    ) -> (key: NetworkKey, counts: ByteCounts)? {
        var counted: (key: NetworkKey, counts: ByteCounts)?
        if let last = baselines[reading.index], !last.isFormer || last.name == reading.name {
            let delta =
                reading.counters.isAtLeast(last.counters) ? reading.counters.minus(last.counters) : reading.counters
            // A former interface's bytes since the last run belong to its network only if it is still on it.
            if !last.isFormer || last.key == keyFromNow {
                book.add(delta, to: last.key, on: day)
                counted = (last.key, delta)
            }
        } else if let keyFromNow, !readWithoutNetwork.contains(reading.index),
            let former = baselines.values.first(where: {
                $0.isFormer && $0.name == reading.name && $0.key == keyFromNow && $0.index != reading.index
            })
        {
            book.add(reading.counters, to: keyFromNow, on: day)
            counted = (keyFromNow, reading.counters)
            baselines[former.index] = nil
        }
        if let keyFromNow {
            baselines[reading.index] = Baseline(
                index: reading.index, name: reading.name, counters: reading.counters, key: keyFromNow, isFormer: false)
            readWithoutNetwork.remove(reading.index)
        } else {
            baselines[reading.index] = nil
            readWithoutNetwork.insert(reading.index)
        }
        return counted
    }

    /// The interface is gone: its bytes since the last reading are lost with its counters; it is remembered as a
    /// former one, so that its re-creation counts from zero.
    public mutating func removed(index: Int32) {
        readWithoutNetwork.remove(index)
        guard var baseline = baselines[index], !baseline.isFormer else { return }
        baseline.isFormer = true
        baselines[index] = baseline
        let former = baselines.values.filter(\.isFormer)
        if former.count > Self.formerKept, let oldest = former.min(by: { $0.index < $1.index }) {
            baselines[oldest.index] = nil
        }
    }

    /// Forgets the days before `day` (see `UsageBook.daysKept`).
    public mutating func forget(before day: CalendarDay) {
        book.forget(before: day)
    }
}

extension ByteCounts {
    /// The difference of counters known to be at least `other` (`isAtLeast`).
    func minus(_ other: ByteCounts) -> ByteCounts {
        ByteCounts(sent: sent - other.sent, received: received - other.received)
    }
}

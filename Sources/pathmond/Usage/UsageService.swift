// SPDX-License-Identifier: Apache-2.0
import Locking
import Logging
import Netlink
import PathModel
import SDEvent

/// Counts each network's bytes from its interfaces' kernel counters (issue 43). Everything but the meter's reads
/// happens on the main loop: the hub's `afterUpdate` says the interfaces may have changed, and an interface whose
/// network changed is read at once, before the new network's key applies, so each interval's bytes go to the
/// network the interface was on; a timer reads the counted interfaces every `interval`, armed only while one is
/// counted, so an idle machine (or one with no identified network) costs no wake-up. Each reading round is saved
/// (`UsageWriter`, off the loop): a crash loses at most the bytes of the last interval.
///
/// `@unchecked Sendable`: `checkedVersion`, `keys`, `unsaved`, `forgottenOn`, `timer`, `limits` and `lastSaved` are
/// touched only on the main loop (the hub's updates, the timers, GetUsage, `start` and `stop`); the meter, read by the
/// metrics writer's thread, is behind its lock.
final class UsageService: @unchecked Sendable {
    /// How often counted interfaces are read when nothing else makes pathmond read them.
    static let defaultInterval = Duration.seconds(60)

    let loop: SDEventLoop
    let hub: PathHub
    private let reader: LinkCounterReader?
    private let writer: UsageWriter?
    let logger: Logger
    let today: @Sendable () -> CalendarDay
    /// How often the timer reads; set on the main loop (a reload), used from the next arming.
    private(set) var interval: Duration
    let meter: Locked<UsageMeter>
    /// Bytes counted per network since pathmond started: the metrics' counters.
    private let sinceStart = Locked<[NetworkKey: ByteCounts]>([:])
    /// Called after a reading round counted bytes (the daemon wakes the metrics writer).
    private let counted: @Sendable () -> Void
    /// The hub's `networksVersion` at the last look: equal, nothing to read.
    private var checkedVersion: (identities: UInt64, facts: UInt64)?
    /// The day the days too old to keep were last forgotten.
    private var forgottenOn: CalendarDay?
    /// Whether bytes were counted since the file was last saved: the timer then runs (once more) to save them.
    private var unsaved = false
    /// The network each interface's bytes go to, by index, at the last look.
    private var keys: [Int32: NetworkKey] = [:]
    var timer: SDEventSource?
    /// The data limits' statuses last handed to the hub, and the state of their reads (`UsageService+Limits`).
    var limits = LimitWatch()
    /// When the file was last saved: while near a limit the rounds come every second and save once an `interval`.
    private var lastSaved = ContinuousClock.now

    init(
        loop: SDEventLoop, hub: PathHub, reader: LinkCounterReader?, meter: UsageMeter, writer: UsageWriter?,
        interval: Duration = defaultInterval, logger: Logger, today: @escaping @Sendable () -> CalendarDay,
        counted: @escaping @Sendable () -> Void = {}
    ) {
        self.counted = counted
        self.loop = loop
        self.hub = hub
        self.reader = reader
        self.writer = writer
        self.interval = interval
        self.logger = logger
        self.today = today
        self.meter = Locked(meter)
    }

    /// The meter as it is (from any thread).
    var snapshot: UsageMeter { meter.withLock { $0 } }

    /// Bytes counted per network since pathmond started (for the metrics file, from any thread).
    var countedSinceStart: [NetworkKey: ByteCounts] { sinceStart.withLock { $0 } }

    private func add(_ counts: [(key: NetworkKey, counts: ByteCounts)]) {
        guard !counts.isEmpty else { return }
        sinceStart.withLock { totals in
            for (key, bytes) in counts { totals[key, default: .zero] += bytes }
        }
        counted()
    }

    /// After every hub update, on the main loop: reads the interfaces whose network changed. When none did and no
    /// link or address changed (a route flip), the tracker's versions say so: one comparison, no pass over the
    /// interfaces, no allocation, no reading.
    func interfacesChanged() {
        guard reader != nil else { return }
        let version = hub.networksVersion
        if let checkedVersion, checkedVersion == version { return }
        let firstLook = checkedVersion == nil
        checkedVersion = version
        // The interfaces whose network may have moved: those the tracker names (a route flip that moves a wired
        // network's gateway names one), or every interface the first time and when it cannot say (a pass over all
        // of them cost a host of 200 veths 20,000 instructions on every such flip).
        let named = hub.takeIdentityChanges()
        let looked: [(index: Int32, name: String, key: NetworkKey?)]
        // Held in place, not an array: mostly the one interface whose network moved.
        var changed = InterfaceIndexes()
        if let named, !firstLook {
            looked = hub.networks(ofInterfaces: named)
            for index in named {
                let key = looked.first { $0.index == index }?.key
                if keys[index] != key {
                    keys[index] = key
                    changed.insert(index)
                }
            }
        } else {
            looked = hub.interfaces.map { ($0.link.index, $0.link.name, $0.identity?.key) }
            var now: [Int32: NetworkKey] = [:]
            now.reserveCapacity(keys.count)
            for interface in looked {
                guard let key = interface.key, now[interface.index] == nil else { continue }
                now[interface.index] = key
                if keys[interface.index] != key { changed.insert(interface.index) }
            }
            for index in keys.keys where now[index] == nil { changed.insert(index) }
            keys = now
        }
        // Interfaces read without a network: those gone since are forgotten here, where the live ones are known
        // (looked up apart when not among those looked at, before the meter's lock is taken: the hub has its own).
        // Most often each was looked at (the interface whose network just went): no set is made then.
        let readWithoutNetwork = meter.withLock { $0.readWithoutNetwork }
        let isLooked = { (index: Int32) in looked.contains { $0.index == index } }
        let elsewhere =
            readWithoutNetwork.allSatisfy(isLooked)
            ? [] : hub.networks(ofInterfaces: InterfaceIndexes(readWithoutNetwork.lazy.filter { !isLooked($0) }))
        // The hub's name of a live interface; nil: it is gone.
        func liveName(_ index: Int32) -> String? {
            (looked.first { $0.index == index } ?? elsewhere.first { $0.index == index })?.name
        }
        for index in readWithoutNetwork where liveName(index) == nil { changed.insert(index) }
        // Not saved here: a network that comes and goes with every route flip (a wired network is known by its
        // gateway) would encode and sync the file each time; the next round saves, within one interval. Read in
        // index order, whatever order the set holds them in.
        if changed.count > 1 {
            read(changed.sorted(), names: liveName, namelessAreGone: true, saving: false)
        } else if !changed.isEmpty {
            read(changed, names: liveName, namelessAreGone: true, saving: false)
        } else {
            // A policy change (a limit set or cleared) moves the versions too, and may read no interface.
            refreshLimits()
        }
    }

    /// Reads `indexes` now and counts their bytes; with `saving`, saves (and otherwise leaves the bytes for the next
    /// round to save); arms or disarms the timer. Each reading carries the interface's name as the hub has it
    /// (`names`, looked up before the meter's lock is taken): RTM_GETSTATS answers with the counters alone. With
    /// `namelessAreGone`, an interface `names` does not know is gone: its bytes since the last reading went with
    /// its counters; without, its last reading's name stands in (the rounds read the counted interfaces, which
    /// the hub knows unless one just went, and its update then says so). Any sequence: a network change passes the
    /// set it found them in, without an array made from it. Its callers skip a read of nothing that saves nothing.
    private func read(
        _ indexes: some Sequence<Int32>, names: (Int32) -> String?, namelessAreGone: Bool, saving: Bool
    ) {
        guard let reader else { return }
        let day = today()
        var counts: [(key: NetworkKey, counts: ByteCounts)] = []
        let encoded: [UInt8]? = meter.withLock { meter in
            for index in indexes {
                let name = names(index) ?? (namelessAreGone ? nil : meter.baselines[index]?.name)
                if let name {
                    if let counters = reader.counters(index: index),
                        let counted = meter.record(
                            CounterReading(index: index, name: name, counters: counters), keyFromNow: keys[index],
                            on: day)
                    {
                        counts.append(counted)
                    }
                    // Else the kernel did not answer (or the link just went, which the hub's next update says):
                    // the next reading covers the interval.
                } else if namelessAreGone {
                    meter.removed(index: index)
                }
            }
            // Once a day: forgetting walks every network's days.
            if day != forgottenOn {
                meter.forget(before: day.advanced(by: -UsageBook.daysKept))
                forgottenOn = day
            }
            return saving ? UsageFile.encode(meter) : nil
        }
        if let encoded {
            writer?.save(encoded)
            unsaved = false
            lastSaved = .now
        } else {
            unsaved = true
        }
        add(counts)
        refreshLimits()
        armTimer()
    }

    /// The counted interfaces and the hub's names for them, looked up before the meter's lock is taken.
    private func countedWithNames() -> (indexes: [Int32], names: [Int32: String]) {
        let indexes = meter.withLock { $0.counted }
        guard !indexes.isEmpty else { return ([], [:]) }
        let interfaces = hub.networks(ofInterfaces: InterfaceIndexes(indexes))
        return (indexes, Dictionary(interfaces.lazy.map { ($0.index, $0.name) }) { first, _ in first })
    }

    /// The timer's round: reads every counted interface and saves (also when none is counted any more, for the
    /// bytes a network change read since the last round).
    private func round() {
        // Near a limit the rounds come every second: the file is still saved once an interval, not each time.
        let counted = countedWithNames()
        let saving = lastSaved.duration(to: .now) >= interval - .milliseconds(100)
        guard saving || !counted.indexes.isEmpty else { return }
        read(counted.indexes, names: { counted.names[$0] }, namelessAreGone: false, saving: saving)
    }

    /// Reads every counted interface before GetUsage answers, without saving: a client that asks often must not
    /// make the disk sync as often (the next round saves).
    func readCounted() {
        let counted = countedWithNames()
        guard !counted.indexes.isEmpty else { return }
        read(counted.indexes, names: { counted.names[$0] }, namelessAreGone: false, saving: false)
    }

    /// Armed while an interface is counted, or bytes wait to be saved.
    func armTimer() {
        let counting = meter.withLock { $0.isCounting }
        guard counting || unsaved else {
            timer = nil
            return
        }
        guard timer == nil else { return }
        do {
            let usual = limits.isNear ? limits.nearDelay : interval
            timer = try loop.schedule(after: min(usual, limits.headroomDelay ?? usual)) { [weak self] in
                guard let self else { return }
                timer = nil
                round()
            }
        } catch {
            logger.error("cannot schedule the usage timer: \(error); usage is read only when networks change")
        }
    }

    /// A reloaded `[usage] interval`, on the main loop: the next reading round is armed with it.
    func setInterval(_ interval: Duration) {
        self.interval = interval
    }

    /// Each network's usage now, by key: the counted interfaces read first.
    func usage() -> [NetworkUsage] {
        readCounted()
        return meter.withLock { meter in
            meter.book.usage(today: today(), alsoListing: Set(meter.counted.compactMap(meter.key(of:))))
        }
    }

    /// The interfaces counted for each network now.
    func countedInterfaces() -> [NetworkKey: [Int32]] {
        meter.withLock { meter in
            var byKey: [NetworkKey: [Int32]] = [:]
            for index in meter.counted { if let key = meter.key(of: index) { byKey[key, default: []].append(index) } }
            return byKey
        }
    }

    /// At stop, after the main loop: reads the counted interfaces a last time and writes the file on this thread.
    func stop() {
        timer = nil
        limits.resetTimer = nil
        guard let reader else { return }
        let day = today()
        let counted = countedWithNames()
        let encoded: [UInt8] = meter.withLock { meter in
            for index in counted.indexes {
                guard let name = counted.names[index] ?? meter.baselines[index]?.name,
                    let counters = reader.counters(index: index)
                else { continue }
                meter.record(
                    CounterReading(index: index, name: name, counters: counters), keyFromNow: meter.key(of: index),
                    on: day)
            }
            return UsageFile.encode(meter)
        }
        writer?.saveNow(encoded)
    }
}

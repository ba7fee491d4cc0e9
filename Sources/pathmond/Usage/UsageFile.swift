// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The usage file in the state directory: each network's bytes by day, and each counted interface's last reading
/// (so that a restart counts what was sent while pathmond was not running). Replaced whole and durably
/// (`StateFileWriter.replace`), as the policy is: a crash leaves the last file written, which is at most one
/// sampling interval old.
struct UsageFile: Sendable {
    static let fileName = "usage.json"
    static let version = 1
    /// Far more than 4 cycles of days for a few hundred networks.
    static let sizeLimit = 4 << 20

    let path: String

    init(stateDirectory: String) {
        path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + Self.fileName
    }

    /// The meter as saved; an empty one when there is no file. A damaged file is kept aside
    /// (`usage.json.corrupt-<time>`) and reported with the empty meter; a newer version's is left in place and
    /// reported, and `isWritable` is false.
    func load() -> (meter: UsageMeter, problem: UsageFileError?, keptAside: String?, isWritable: Bool) {
        let bytes: [UInt8]
        do {
            bytes = try StateFileReader.read(path, limit: Self.sizeLimit)
        } catch {
            if case .system(let errno) = error, errno == .noSuchFileOrDirectory {
                return (UsageMeter(), nil, nil, true)
            }
            return (UsageMeter(), .unreadable(error), keepAside(), true)
        }
        do throws(UsageFileError) {
            return (try Self.decode(bytes), nil, nil, true)
        } catch {
            if case .newerVersion = error { return (UsageMeter(), error, nil, false) }
            return (UsageMeter(), error, keepAside(), true)
        }
    }

    /// Writes the bytes `encode` made, durably. Blocks on the disk: never on the main loop.
    func write(_ bytes: [UInt8]) throws(StateFileError) {
        try StateFileWriter.replace(path, with: bytes, mode: 0o600, durable: true)
    }

    private func keepAside() -> String? {
        let aside = path + ".corrupt-" + FileSystem.timestamp()
        do {
            try FileSystem.move(path, toFreshName: aside)
            return aside
        } catch {
            return nil
        }
    }

    // MARK: - The format, pure

    struct Document: Codable {
        var version: Int
        var networks: [Network]?
        var interfaces: [Interface]?
    }

    struct Network: Codable {
        var key: String
        var days: [Day]
    }

    struct Day: Codable {
        var day: String
        var sent: UInt64
        var received: UInt64
    }

    struct Interface: Codable {
        var index: Int32
        var name: String
        var key: String
        var sent: UInt64
        var received: UInt64
    }

    static func encode(_ meter: UsageMeter) -> [UInt8] {
        let networks = meter.book.days.keys.sorted().map { key in
            Network(
                key: key.description,
                days: (meter.book.days[key] ?? [:]).sorted { $0.key < $1.key }.map {
                    Day(day: $0.key.description, sent: $0.value.sent, received: $0.value.received)
                })
        }
        let interfaces = meter.baselines.values.sorted { $0.index < $1.index }.map {
            Interface(
                index: $0.index, name: $0.name, key: $0.key.description, sent: $0.counters.sent,
                received: $0.counters.received)
        }
        let document = Document(version: version, networks: networks, interfaces: interfaces)
        // Encoding plain strings and integers cannot fail.
        return ((try? JSONValueEncoder().encode(document)) ?? []) + [UInt8(ascii: "\n")]
    }

    static func decode(_ bytes: [UInt8]) throws(UsageFileError) -> UsageMeter {
        let document: Document
        do {
            document = try JSONValueDecoder().decode(Document.self, from: bytes)
        } catch {
            throw .malformed("\(error)")
        }
        guard document.version <= version else { throw .newerVersion(document.version) }
        var days: [NetworkKey: [CalendarDay: ByteCounts]] = [:]
        for network in document.networks ?? [] {
            guard let key = NetworkKey(network.key) else { throw .invalidNetworkKey(network.key) }
            for entry in network.days {
                guard let day = Self.day(entry.day) else { throw .invalidDay(entry.day) }
                days[key, default: [:]][day, default: .zero] += ByteCounts(sent: entry.sent, received: entry.received)
            }
        }
        var restored: [UsageMeter.Baseline] = []
        for interface in document.interfaces ?? [] {
            guard let key = NetworkKey(interface.key) else { throw .invalidNetworkKey(interface.key) }
            restored.append(
                UsageMeter.Baseline(
                    index: interface.index, name: interface.name,
                    counters: ByteCounts(sent: interface.sent, received: interface.received), key: key, isFormer: true))
        }
        return UsageMeter(book: UsageBook(days: days), restored: restored)
    }

    /// "2026-11-29" → the day; nil unless it is exactly that shape of a real date.
    static func day(_ text: String) -> CalendarDay? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2]),
            (1...12).contains(month), (1...CalendarDay.daysIn(month: month, year: year)).contains(dayOfMonth)
        else { return nil }
        let day = CalendarDay(year: year, month: month, day: dayOfMonth)
        return day.description == text ? day : nil
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import Testing

@testable import pathmond

/// The usage file: what is written reads back the same, and every damaged shape is a typed error, never a crash
/// or a guess; on disk a damaged file is kept aside and the meter starts empty.
@Suite struct UsageFileTests {
    static let home = NetworkKey("wifi:Home")!
    static let wired = NetworkKey("wired:02:00:00:00:aa:01")!

    static func meter() -> UsageMeter {
        var meter = UsageMeter()
        let day = CalendarDay(year: 2026, month: 11, day: 29)
        meter.record(CounterReading(index: 3, name: "wlan0", counters: .zero), keyFromNow: Self.home, on: day)
        meter.record(
            CounterReading(index: 3, name: "wlan0", counters: ByteCounts(sent: 10, received: 2_000)),
            keyFromNow: Self.home, on: day)
        meter.record(
            CounterReading(index: 4, name: "eth0", counters: ByteCounts(sent: 5, received: 6)), keyFromNow: Self.wired,
            on: day.advanced(by: -40))
        meter.record(
            CounterReading(index: 4, name: "eth0", counters: ByteCounts(sent: 50, received: 60)),
            keyFromNow: Self.wired, on: day.advanced(by: -40))
        return meter
    }

    @Test func whatIsWrittenReadsBack() throws {
        let meter = Self.meter()
        let decoded = try UsageFile.decode(UsageFile.encode(meter))
        #expect(decoded.book == meter.book)
        // The readings come back as former interfaces: matched again by index, name and network.
        #expect(decoded.baselines.values.allSatisfy { $0.isFormer })
        #expect(decoded.baselines.mapValues(\.counters) == meter.baselines.mapValues(\.counters))
        #expect(decoded.baselines.mapValues(\.key) == meter.baselines.mapValues(\.key))
    }

    @Test(arguments: [
        (#"{"version":1,"networks":[{"key":"bogus","days":[]}]}"#, UsageFileError.invalidNetworkKey("bogus")),
        (
            #"{"version":1,"networks":[{"key":"wifi:Home","days":[{"day":"2026-02-30","sent":1,"received":1}]}]}"#,
            .invalidDay("2026-02-30")
        ),
        (
            #"{"version":1,"networks":[{"key":"wifi:Home","days":[{"day":"2026-2-3","sent":1,"received":1}]}]}"#,
            .invalidDay("2026-2-3")
        ),
        (#"{"version":2}"#, .newerVersion(2)),
        (
            #"{"version":1,"interfaces":[{"index":1,"name":"x","key":"nope","sent":0,"received":0}]}"#,
            .invalidNetworkKey("nope")
        ),
    ])
    func damageIsNamed(_ text: String, _ expected: UsageFileError) {
        #expect(throws: expected) { try UsageFile.decode(Array(text.utf8)) }
    }

    @Test(arguments: [
        "", "{", "[]", #"{"version":"1"}"#,
        #"{"version":1,"networks":[{"key":"wifi:A","days":[{"day":"2026-01-01","sent":-1,"received":0}]}]}"#,
    ])
    func notAUsageFileIsMalformed(_ text: String) {
        #expect {
            try UsageFile.decode(Array(text.utf8))
        } throws: { error in
            if case .malformed = error as? UsageFileError { true } else { false }
        }
    }

    @Test func aDamagedFileIsKeptAsideAndTheMeterStartsEmpty() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = UsageFile(stateDirectory: directory.path)
        try Data("not json".utf8).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.meter == UsageMeter())
        #expect(loaded.isWritable)
        let aside = try #require(loaded.keptAside)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(!FileManager.default.fileExists(atPath: file.path))

        try file.write(UsageFile.encode(Self.meter()))
        let reloaded = file.load()
        #expect(reloaded.problem == nil)
        #expect(reloaded.meter.book == Self.meter().book)
    }

    @Test func aNewerFileIsLeftInPlaceAndNotWritten() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = UsageFile(stateDirectory: directory.path)
        try Data(#"{"version":9}"#.utf8).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.problem == .newerVersion(9))
        #expect(!loaded.isWritable)
        #expect(loaded.keptAside == nil)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}

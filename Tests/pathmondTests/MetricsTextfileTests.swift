// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import Synchronization
import Testing

@testable import pathmond

/// The metrics file: swift-prometheus's exposition text, valid for Debian's promtool after every kind of change,
/// with the values the state says, written at most once a second with the last change never lost.
@Suite(.serialized) struct MetricsTextfileTests {
    static let eth0 = PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: false)
    static let wwan0 = PathInterface(index: 3, name: "wwan0", kind: .cellular, isExpensive: true)

    static func status(_ index: Int32, _ name: String, kind: InterfaceKind, expensive: Bool = false) -> InterfaceStatus
    {
        InterfaceStatus(
            link: Link(
                index: index, name: name, flags: [.up, .running, .lowerUp], operState: .up, linkKind: nil,
                hardwareType: 1, device: .unknown),
            interfaceClass: InterfaceClass(kind: kind, isExpensive: expensive), readiness: .usable, addresses: [],
            routes: [], supportedFamilies: [], isExpensive: expensive)
    }

    /// promtool's verdict on the text: nil when valid, else what it said.
    static func promtool(_ bytes: [UInt8]) throws -> String? {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/promtool")
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 && said.isEmpty ? nil : said
    }

    /// "name{labels} value" lines as a dictionary.
    static func samples(_ bytes: [UInt8]) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            result[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return result
    }

    @Test func everyKindOfChangeRendersValidTextWithTheRightValues() throws {
        let renderer = MetricsRenderer(version: "9.9.9", startTimeSeconds: 1_795_000_000)
        var counters = DaemonCounters.Snapshot()
        let wired = Path(status: .satisfied, availableInterfaces: [Self.eth0], supportsIPv4: true)
        let cellular = Path(status: .satisfied, availableInterfaces: [Self.wwan0], isExpensive: true)
        let both = [Self.status(2, "eth0", kind: .wired), Self.status(3, "wwan0", kind: .cellular, expensive: true)]
        let steps: [(Path, [InterfaceStatus])] = [
            (.unsatisfied(.noInterfaces), []),
            (wired, both),
            (cellular, both),
            (cellular, [both[1]]),  // eth0 gone: its series must go too
            (.unsatisfied(.noCarrier), [Self.status(3, "wwan0", kind: .other)]),  // the type changed
        ]
        for (step, (path, interfaces)) in steps.enumerated() {
            counters.pathChanges += 1
            counters.clientsConnected += 2
            counters.clientsOpen = Int64(step % 2)
            let bytes = renderer.render(
                path: path, interfaces: interfaces, counters: counters, lastChangeSeconds: 1_795_000_100)
            #expect(try Self.promtool(bytes) == nil, "step \(step)")
            let samples = Self.samples(bytes)
            // One series per status, always both: 1 for the path's, 0 for the other.
            for status in PathStatus.allCases {
                let series = "pathmond_path_status{status=\"\(status.rawValue)\"}"
                #expect(samples[series] == (path.status == status ? 1 : 0))
            }
            #expect(samples["pathmond_path_satisfied"] == nil)
            #expect(samples["pathmond_path_expensive"] == (path.isExpensive ? 1 : 0))
            #expect(samples["pathmond_path_changes_total"] == Double(step + 1))
            #expect(samples["pathmond_clients_connected_total"] == Double(2 * (step + 1)))
            #expect(samples["pathmond_clients"] == Double(step % 2))
            #expect(samples["pathmond_build_info{version=\"9.9.9\"}"] == 1)
            #expect(samples["pathmond_start_time_seconds"] == 1_795_000_000)
            #expect(samples.keys.filter { $0.hasPrefix("pathmond_interface_info") }.count == interfaces.count)
        }
        let last = Self.samples(
            renderer.render(
                path: cellular, interfaces: both, counters: counters, lastChangeSeconds: nil))
        #expect(last["pathmond_interface_info{interface=\"eth0\",type=\"wired\"}"] == 1)
        #expect(last["pathmond_interface_usable{interface=\"wwan0\"}"] == 1)
        #expect(last["pathmond_interface_primary{interface=\"wwan0\"}"] == 1)
        #expect(last["pathmond_interface_usable{interface=\"eth0\"}"] == 0)
        #expect(last["pathmond_interface_expensive{interface=\"wwan0\"}"] == 1)
        #expect(last["pathmond_interface_info{interface=\"wwan0\",type=\"other\"}"] == nil)
    }

    @Test func hostileInterfaceNamesStayOneLabel() throws {
        let renderer = MetricsRenderer(version: "1", startTimeSeconds: 0)
        let names = ["a\"b", "c\\d", "e\nf", "{x=\"y\"}"]
        let interfaces = names.enumerated().map { Self.status(Int32($0.offset + 2), $0.element, kind: .other) }
        let bytes = renderer.render(
            path: .unsatisfied(.noAddress), interfaces: interfaces, counters: .init(), lastChangeSeconds: nil)
        #expect(try Self.promtool(bytes) == nil)
    }

    /// `curl :9100/metrics` on a terminal must not run what a name holds: ESC, BEL, C1 and bidirectional or
    /// invisible characters reach the label as the escapes pathctl prints.
    @Test func labelValuesCannotDriveATerminal() throws {
        let renderer = MetricsRenderer(version: "1", startTimeSeconds: 0)
        let interfaces = [Self.status(2, "eth0\u{1B}]0;PWN\u{07}\u{9B}\u{202E}\u{200B}", kind: .other)]
        let bytes = renderer.render(
            path: .unsatisfied(.noAddress), interfaces: interfaces, counters: .init(), lastChangeSeconds: nil)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        #expect(!text.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{200B}" })
        #expect(text.contains(#"interface="eth0\\x1b]0;PWN\\x07\\u{009B}\\u{202E}\\u{200B}""#), "\(text)")
        #expect(try Self.promtool(bytes) == nil)
    }

    @Test func writesAtMostOnceASecondAndNeverLosesTheLastChange() throws {
        let directory = "/tmp/pmmetrics-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pathmond.prom"
        let counters = DaemonCounters()
        let satisfied = Satisfied()
        let textfile = MetricsTextfile(path: path, version: "1", startTimeSeconds: 0, counters: counters) {
            MetricsState(
                path: satisfied.value ? Path(status: .satisfied) : .unsatisfied(.noCarrier), interfaces: [],
                lastChangeSeconds: nil)
        }
        func written() throws -> Double? {
            Self.samples(Array(try Data(contentsOf: URL(filePath: path))))["pathmond_path_status{status=\"satisfied\"}"]
        }
        let start = ContinuousClock.now
        #expect(try textfile.writeIfDue(now: start) == nil)
        #expect(try written() == 0)
        // Nothing changed: no write owed.
        #expect(try textfile.writeIfDue(now: start + .seconds(5)) == nil)
        satisfied.value = true
        DaemonCounters.bump(counters.pathChanges)
        // Changed 5 s after the last write: written at once.
        #expect(try textfile.writeIfDue(now: start + .seconds(5)) == nil)
        #expect(try written() == 1)
        // A burst within the second: owed, not written, and the instant it is due is returned.
        satisfied.value = false
        let due = try textfile.writeIfDue(now: start + .milliseconds(5100))
        #expect(due == start + .seconds(6))
        #expect(try written() == 1)
        // At the instant asked for, the trailing write happens.
        #expect(try textfile.writeIfDue(now: start + .seconds(6)) == nil)
        #expect(try written() == 0)
        // No temporary file is left where node_exporter's glob would see it.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names == ["pathmond.prom"])
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o644)
    }
}

/// What the metrics state closure reads: it may run on the state writer's thread.
private final class Satisfied: Sendable {
    private let state = Atomic<Bool>(false)
    var value: Bool {
        get { state.load(ordering: .relaxed) }
        set { state.store(newValue, ordering: .relaxed) }
    }
}

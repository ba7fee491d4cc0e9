// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PathProtocol

/// The history writer goes from the model straight to bytes; the oracle is the Codable path it replaced on the event
/// path, `WireHistoryEntry(entry)` through `VarlinkCodec` (JSONEncoder), which still decodes every line. Files
/// and replies written before and after must read the same, so the bytes must be the same: for every cause kind,
/// every status and reason, empty and long lists, and text with everything JSON escapes and more.
@Suite struct HistoryEntryWriterTests {
    @Test func entriesMatchTheCodecByteForByte() {
        var random = SplitMix(seed: 0x6869_7374_6f72_79)
        var kinds = Set<PathChangeCause.Kind>()
        for _ in 0..<3_000 {
            let entry = randomEntry(&random)
            kinds.insert(entry.cause.kind)
            let expected = oracleLine(entry)
            let line = StreamedReplyWriter.historyEntry(entry)
            #expect(line == expected, "\(String(decoding: line, as: UTF8.self))")
            let reply = StreamedReplyWriter.historyReply(entry)
            let expectedReply = VarlinkCodec().encodeReply(
                Methods.HistoryReply(entries: [WireHistoryEntry(entry)]), continues: true)
            #expect(reply == expectedReply, "\(String(decoding: reply, as: UTF8.self))")
            if line != expected || reply != expectedReply { return }
        }
        #expect(kinds == Set(PathChangeCause.Kind.allCases))
    }

    /// Many entries at once, as the file appends them and a GetHistory encoding keeps them: each line the codec's,
    /// newline-ended, or back to back with each end told; past the first room, whichever piece crosses it.
    @Test func batchesMatchTheCodecByteForByte() {
        var random = SplitMix(seed: 0x6261_7463_68)
        for count in [0, 1, 2, 3, 17, 64, 65, 200] {
            let entries = (0..<count).map { _ in randomEntry(&random) }
            let lines = entries.map(oracleLine)
            let expectedLines = Array(lines.map { $0 + [0x0A] }.joined())
            #expect(StreamedReplyWriter.historyLines(entries) == expectedLines)
            #expect(StreamedReplyWriter.withHistoryLines(entries) { Array($0) } == expectedLines)
            var ends: [Int] = []
            let packed = StreamedReplyWriter.historyEntries(entries[...]) { ends.append($0) }
            #expect(packed == Array(lines.joined()))
            #expect(ends == lines.indices.map { lines[...$0].reduce(0) { $0 + $1.count } })
        }
    }

    /// A daemon's own entries: what a route flip records, names as links have them.
    @Test func aKernelEntryReadsAsTheCodecWritesIt() {
        let up = PathSummary(
            status: .satisfied, interfaces: ["eth0", "wlan-café"], supportsIPv4: true, supportsIPv6: true)
        let down = PathSummary(status: .unsatisfied, unsatisfiedReason: .noDefaultRoute)
        let entry = PathHistoryEntry(
            sequence: 42, wallMicroseconds: 1_764_000_000_000_000, monotonicMicroseconds: 123_456_789,
            bootID: "0b5a6c1e-1f2a-4b3c-9d8e-7f6a5b4c3d2e", before: down, after: up,
            cause: PathChangeCause(kind: .kernel, kernelTables: [.route], interfaces: ["eth0"]))
        let line = String(decoding: StreamedReplyWriter.historyEntry(entry), as: UTF8.self)
        #expect(line == String(decoding: oracleLine(entry), as: UTF8.self))
        #expect(line.contains(#""description":"kernel: route on eth0""#))
    }

    /// Each name the writer keeps as constant bytes is its case's raw value, quoted.
    @Test func constantNamesAreTheRawValues() {
        func text(_ name: StaticString) -> String { name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) } }
        for status in PathStatus.allCases { #expect(text(status.quotedName) == "\"\(status.rawValue)\"") }
        for reason in UnsatisfiedReason.allCases { #expect(text(reason.quotedName) == "\"\(reason.rawValue)\"") }
        for kind in PathChangeCause.Kind.allCases { #expect(text(kind.quotedName) == "\"\(kind.rawValue)\"") }
        for found in PathChangeCause.Detection.allCases { #expect(text(found.quotedName) == "\"\(found.rawValue)\"") }
        for table in PathChangeCause.KernelTable.allCases {
            #expect(text(table.quotedName) == "\"\(table.rawValue)\"")
        }
    }

    /// The words spelled into a JSON string are `description`, escaped.
    @Test func wordsSpelledIntoJSONAreTheDescription() {
        var random = SplitMix(seed: 0x776f_7264_73)
        for _ in 0..<1_000 {
            let cause = randomEntry(&random).cause
            var out = JSONBytes()
            out.raw("\"")
            cause.spell(into: &out)
            out.raw("\"")
            var expected = VarlinkCodec().encode(cause.description)
            expected.removeLast()
            #expect(out.bytes == expected, "\(cause.description)")
        }
    }

    /// `WireHistoryEntry(entry)` as VarlinkCodec writes it, without its NUL.
    private func oracleLine(_ entry: PathHistoryEntry) -> [UInt8] {
        var bytes = VarlinkCodec().encode(WireHistoryEntry(entry))
        bytes.removeLast()
        return bytes
    }

    /// Every cause kind with every optional present or absent, lists empty to longer than the writer's room, text
    /// from the hostile alphabet, numbers across their ranges.
    private func randomEntry(_ random: inout SplitMix) -> PathHistoryEntry {
        func summary(_ random: inout SplitMix) -> PathSummary {
            PathSummary(
                status: pick(PathStatus.allCases, &random),
                unsatisfiedReason: random.next() % 2 == 0 ? pick(UnsatisfiedReason.allCases, &random) : nil,
                interfaces: names(&random), isExpensive: random.next() % 2 == 0,
                isConstrained: random.next() % 2 == 0, supportsIPv4: random.next() % 2 == 0,
                supportsIPv6: random.next() % 2 == 0)
        }
        func optionalText(_ random: inout SplitMix) -> String? {
            random.next() % 2 == 0 ? hostileText(&random) : nil
        }
        let tables = (0..<Int(random.next() % 7)).map { _ in pick(PathChangeCause.KernelTable.allCases, &random) }
        let cause = PathChangeCause(
            kind: pick(PathChangeCause.Kind.allCases, &random), kernelTables: tables,
            interfaceIndices: (0..<Int(random.next() % 3)).map { _ in Int32(truncatingIfNeeded: random.next()) },
            interfaces: names(&random),
            detection: random.next() % 2 == 0 ? pick(PathChangeCause.Detection.allCases, &random) : nil,
            network: optionalText(&random),
            userID: random.next() % 2 == 0 ? UInt32(truncatingIfNeeded: random.next()) : nil,
            detail: optionalText(&random))
        return PathHistoryEntry(
            sequence: random.next(), wallMicroseconds: Int64(bitPattern: random.next()),
            monotonicMicroseconds: random.next(), bootID: random.next() % 4 == 0 ? "" : hostileText(&random),
            before: summary(&random), after: summary(&random), cause: cause)
    }

    /// Mostly none to a few, now and then forty (past the bound a daemon keeps, and past the writer's room).
    private func names(_ random: inout SplitMix) -> [String] {
        let count = random.next() % 10 == 0 ? 40 : Int(random.next() % 4)
        return (0..<count).map { _ in hostileText(&random) }
    }

    private func pick<Element>(_ cases: [Element], _ random: inout SplitMix) -> Element {
        cases[Int(random.next() % UInt64(cases.count))]
    }

    /// Plain names most of the time (the fast path), else text with what JSON must escape (quotes, backslashes,
    /// every control character), slashes, DEL, two- to four-byte UTF-8, bidi controls and line separators; now and
    /// then long.
    private func hostileText(_ random: inout SplitMix) -> String {
        let plain = ["eth0", "wlan0", "wwan0", "br-lan.42", "wifi:Home"]
        if random.next() % 3 == 0 { return plain[Int(random.next() % UInt64(plain.count))] }
        let alphabet: [Unicode.Scalar] =
            (0..<0x20).map { Unicode.Scalar(UInt8($0)) } + [
                "\"", "\\", "/", "a", "Z", "0", " ", ":", "é", "€", "🛜", "\u{7f}", "\u{80}", "\u{202E}", "\u{2066}",
                "\u{2069}", "\u{200F}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{FFFD}", "\u{10FFFF}",
            ]
        let count = random.next() % 8 == 0 ? 300 + Int(random.next() % 300) : Int(random.next() % 16)
        return String(
            String.UnicodeScalarView((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
    }
}

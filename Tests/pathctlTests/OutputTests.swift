// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@testable import pathctl

@Suite struct JSONOutputTests {
    @Test func prettyIndentsByTwoAndKeepsStringsIntact() {
        let compact = #"{"a":[],"b":{},"c":[1,{"d":"x{y}[z],:\"q\\"}],"e":null}"#
        #expect(
            JSONOutput.pretty(compact) == """
                {
                  "a": [],
                  "b": {},
                  "c": [
                    1,
                    {
                      "d": "x{y}[z],:\\"q\\\\"
                    }
                  ],
                  "e": null
                }
                """)
    }

    @Test func shortIsOneLineAndPrettyParsesBack() {
        struct Value: Encodable {
            let name = "Café \"{x}\""
            let list: [Int] = []
        }
        #expect(JSONOutput.encode(Value(), mode: .short) == #"{"list":[],"name":"Café \"{x}\""}"#)
        #expect(JSONOutput.encode(Value(), mode: .pretty) == "{\n  \"list\": [],\n  \"name\": \"Café \\\"{x}\\\"\"\n}")
    }
}

@Suite struct TextTableTests {
    let table = TextTable(
        header: ["IDX", "NAME", "NETWORK", "ADDRESS"],
        rows: [["1", "eth0", "wired network via gateway 192.0.2.1 (de:b0:5b:9a:11:94)", "192.0.2.10/24"]],
        shrinkable: [2], droppable: [0, 3])

    @Test func unlimitedWidthPrintsEverything() {
        let text = table.render(width: nil, legend: true)
        #expect(text.contains("(de:b0:5b:9a:11:94)") && text.contains("192.0.2.10/24") && text.hasPrefix("IDX"))
    }

    @Test(arguments: [100, 80, 60, 40])
    func linesFitTheWidth(width: Int) {
        let lines = table.render(width: width, legend: true).split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        // An address is whole or left out, never cut.
        #expect(lines.allSatisfy { !$0.contains("192.0.2.1…") })
        #expect(lines.allSatisfy { $0.contains("eth0") || $0.hasPrefix("NAME") || $0.hasPrefix("IDX") })
    }

    @Test func columnsGoBeforeNamesAreCutShort() {
        // 45 columns: dropping the index keeps the network name readable (24 characters or more).
        let text = table.render(width: 45, legend: true)
        #expect(!text.hasPrefix("IDX") && text.contains("192.0.2.10/24"))
        let network = text.split(separator: "\n")[1].split(separator: "  ", omittingEmptySubsequences: true)[1]
        #expect(network.count >= 24, "\(text)")
    }

    @Test func noLegendLeavesOutTheHeader() {
        #expect(table.render(width: nil, legend: false).hasPrefix("1"))
    }
}

@Suite struct TextTableDisplayWidthTests {
    /// The column where `needle` starts on `line`, in terminal columns.
    private func column(of needle: String, in line: Substring) -> Int? {
        guard let range = line.firstRange(of: needle) else { return nil }
        return HumanText.displayWidth(line[..<range.lowerBound])
    }

    @Test(arguments: ["eth0", "東京オフィス", "Cafe\u{301}", "eth0\u{200B}", "\u{202E}0hte", "📶📶", "ｗｌａｎ０"])
    func columnsLineUpWhateverTheNames(name: String) {
        let text = TextTable.render(header: ["NAME", "TYPE"], rows: [["lo", "loopback"], [name, "wired"]])
        let lines = text.split(separator: "\n")
        let columns = lines.map { line in
            column(of: line.hasPrefix("NAME") ? "TYPE" : (line.hasPrefix("lo") ? "loopback" : "wired"), in: line)
        }
        #expect(Set(columns).count == 1, "\(text)")
        #expect(lines.allSatisfy { HiddenText.isVisible(String($0)) }, "\(text)")
    }

    @Test func aWideNameIsCutToTheWidthInColumns() {
        let table = TextTable(
            header: ["NAME", "NETWORK"], rows: [["eth0", "東京オフィスの有線ネットワーク"]], shrinkable: [1], minimumWidth: 8)
        let lines = table.render(width: 20, legend: true).split(separator: "\n")
        #expect(lines.allSatisfy { HumanText.displayWidth($0) <= 20 }, "\(lines)")
        #expect(lines[1].hasSuffix("…"))
    }

    @Test func hiddenCharactersInCellsAreEscaped() {
        let text = TextTable.render(header: ["NAME"], rows: [["eth0\u{200B}"], ["ssid\u{202E}x"], ["e\u{1B}[2J"]])
        #expect(text.contains(#"eth0\u{200B}"#) && text.contains(#"ssid\u{202E}x"#) && text.contains(#"e\x1b[2J"#))
    }
}

@Suite struct ByteSizeTests {
    @Test(arguments: [
        (UInt64(0), "0 B"), (999, "999 B"), (1_000, "1.0 kB"), (1_049, "1.0 kB"), (1_050, "1.1 kB"),
        (9_949, "9.9 kB"), (9_950, "10 kB"), (999_499, "999 kB"), (999_600, "1.0 MB"), (4_100_000_000, "4.1 GB"),
        (5_000_000_000, "5.0 GB"),
        (UInt64.max, "18 EB"),
    ])
    func sizesAreDecimal(_ bytes: UInt64, _ text: String) {
        #expect(ByteSize.text(bytes) == text)
    }
}

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

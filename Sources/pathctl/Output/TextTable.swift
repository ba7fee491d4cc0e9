/// Columns padded to their widest cell, two spaces apart, as networkctl prints them. Cells are escaped for the
/// terminal: names come from the daemon, and through it from whoever named an interface or a network.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let rows = rows.map { $0.map(TerminalText.escaped) }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }
                .joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}

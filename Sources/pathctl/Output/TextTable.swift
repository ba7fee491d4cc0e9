// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// Columns padded to their widest cell, two spaces apart, as networkctl prints them. Cells are escaped for the
/// terminal: names come from the daemon, and through it from whoever named an interface or a network. Widths are
/// terminal columns (`HumanText.displayWidth`): a CJK character takes two, a combining accent none.
///
/// Given a width, the table fits it: the widest of the shrinkable columns loses a character at a time (its cells
/// ellipsized with "…") until the lines fit or every such column is down to its minimum; if that is not enough,
/// the droppable columns go, least useful first, and the shrinking starts again.
struct TextTable {
    var header: [String]
    var rows: [[String]]
    /// Columns that may be narrowed, by index; the others (names, states) always print whole.
    var shrinkable: Set<Int> = []
    /// Columns that may be left out on a narrow terminal, in the order they go.
    var droppable: [Int] = []
    /// No column is narrowed below this many characters (nor below its header).
    var minimumWidth = 8
    /// Before dropping columns, shrinkable ones are narrowed only down to this many characters.
    var comfortableWidth = 24

    static func render(header: [String], rows: [[String]]) -> String {
        TextTable(header: header, rows: rows).render(width: nil, legend: true)
    }

    /// The lines; `width` nil means as wide as the cells; without `legend` the header line is left out.
    func render(width: Int?, legend: Bool) -> String {
        let rows = rows.map { $0.map(HumanText.escaped) }
        let natural = header.indices.map { column in
            ([header] + rows).map { HumanText.displayWidth($0[column]) }.max() ?? 0
        }
        var columns = Array(header.indices)
        var widths = natural
        if let width {
            // Columns go before a name is cut below a readable width; only if that is not enough either are the
            // names cut further.
            for floor in [comfortableWidth, minimumWidth] {
                columns = Array(header.indices)
                var dropping = droppable[...]
                while true {
                    widths = fitted(natural, columns: columns, width: width, floor: floor)
                    guard total(widths, columns) > width, let next = dropping.popFirst() else { break }
                    columns.removeAll { $0 == next }
                }
                if total(widths, columns) <= width { break }
            }
        }
        func line(_ cells: [String]) -> String {
            let cells = columns.map { cells[$0] }
            let widths = columns.map { widths[$0] }
            var text = zip(cells, widths).map { cell, width in
                let cellWidth = HumanText.displayWidth(cell)
                let fitted =
                    cellWidth > width ? HumanText.prefix(cell, displayWidth: max(0, width - 1)) + "…" : cell
                return fitted + String(repeating: " ", count: max(0, width - HumanText.displayWidth(fitted)))
            }
            .joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        // A row that only continued a column left out (a second address) would print empty.
        let shown = rows.filter { row in columns.contains { !row[$0].isEmpty } }
        return ((legend ? [line(header)] : []) + shown.map(line)).joined(separator: "\n")
    }

    /// The widths after narrowing the shrinkable columns among `columns`, widest first, to fit `width`, none below
    /// `floor` (nor below its header).
    private func fitted(_ natural: [Int], columns: [Int], width: Int, floor: Int) -> [Int] {
        var widths = natural
        let floors = header.indices.map { max(HumanText.displayWidth(header[$0]), min(floor, natural[$0])) }
        while total(widths, columns) > width {
            let candidates = shrinkable.filter { columns.contains($0) && widths[$0] > floors[$0] }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// The width of a line of `columns`, two spaces apart.
    private func total(_ widths: [Int], _ columns: [Int]) -> Int {
        columns.map { widths[$0] }.reduce(0, +) + 2 * max(0, columns.count - 1)
    }
}

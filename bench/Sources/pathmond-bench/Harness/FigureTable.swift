// SPDX-License-Identifier: Apache-2.0
/// The table every new bench prints: one row per figure, pathmond's value beside its reference, their ratio, and the
/// goal the issue sets. Values arrive formatted; the ratio is computed from the raw numbers.
struct FigureTable {
    struct Row {
        var figure: String
        var measured: String
        var reference: String
        var ratio: String
        var goal: String
    }

    var title: String
    var referenceName: String
    private var rows: [Row] = []
    private var notes: [String] = []

    init(title: String, referenceName: String) {
        self.title = title
        self.referenceName = referenceName
    }

    mutating func add(
        _ figure: String, _ measured: String, _ reference: String = "", ratio: Double? = nil, goal: String = ""
    ) {
        rows.append(
            Row(
                figure: figure, measured: measured, reference: reference, ratio: ratio.map(formatRatio) ?? "",
                goal: goal))
    }

    /// A row whose values are durations in nanoseconds.
    mutating func addTime(_ figure: String, _ measured: UInt64?, _ reference: UInt64?, goal: String = "") {
        add(
            figure, measured.map(formatDuration) ?? "-", reference.map(formatDuration) ?? "-",
            ratio: figureRatio(measured.map(Double.init), reference.map(Double.init)), goal: goal)
    }

    mutating func note(_ line: String) {
        notes.append(line)
    }

    func render() -> String {
        let header = Row(figure: "figure", measured: "pathmond", reference: referenceName, ratio: "ratio", goal: "goal")
        let all = [header] + rows
        func width(_ column: (Row) -> String) -> Int { all.map { column($0).count }.max() ?? 0 }
        let widths: [Int] = [width(\.figure), width(\.measured), width(\.reference), width(\.ratio)]
        func line(_ row: Row) -> String {
            [
                pad(row.figure, widths[0], left: true), pad(row.measured, widths[1]), pad(row.reference, widths[2]),
                pad(row.ratio, widths[3]), row.goal,
            ].joined(separator: "  ")
        }
        return ([title, line(header)] + rows.map(line) + notes).joined(separator: "\n")
    }
}

private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}

func figureRatio(_ measured: Double?, _ reference: Double?) -> Double? {
    guard let measured, let reference, reference > 0 else { return nil }
    return measured / reference
}

func formatRatio(_ value: Double) -> String {
    value >= 100 ? "\(Int(value.rounded()))x" : "\(rounded(value, 2))x"
}

/// 1.23 ms, 456.7 µs, 2.5 s.
func formatDuration(_ nanoseconds: UInt64) -> String {
    let value = Double(nanoseconds)
    if value >= 1e9 { return "\(rounded(value / 1e9, 2)) s" }
    if value >= 1e6 { return "\(rounded(value / 1e6, 2)) ms" }
    return "\(rounded(value / 1e3, 1)) µs"
}

func formatMegabytes(kibibytes: Int) -> String {
    "\(rounded(Double(kibibytes) / 1024, 1)) MB"
}

func rounded(_ value: Double, _ digits: Int) -> Double {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return (value * scale).rounded() / scale
}

/// Nearest-rank percentile of nanosecond samples.
func nearestRank(_ samples: [UInt64], _ fraction: Double) -> UInt64? {
    guard !samples.isEmpty else { return nil }
    let sorted = samples.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

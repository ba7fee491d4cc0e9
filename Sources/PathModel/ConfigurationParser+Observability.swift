// SPDX-License-Identifier: Apache-2.0
// The `[history]`, `[metrics]`, `[discretionary]` and `[usage]` sections: how much path history to keep, where to
// write metrics, how the system policy follows the path, and how often usage is read.

extension ConfigurationParser {
    /// Applies one `key = value` line of `[history]`.
    mutating func setHistory(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "entries" else {
            warn(.unknownKey(line: line, section: "history", key: key))
            return
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        guard value.allSatisfy({ $0.isASCII && $0.isNumber }), value.count <= 7, let entries = Int(value),
            (1...PathHistory.maximumCapacity).contains(entries)
        else {
            throw .invalidValue(
                line: line, key: key, value: value, expected: "a number from 1 to \(PathHistory.maximumCapacity)")
        }
        historyEntries = entries
        keyLines[key] = line
    }

    /// Applies one `key = value` line of `[metrics]`.
    mutating func setMetrics(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "textfile" else {
            warn(.unknownKey(line: line, section: "metrics", key: key))
            return
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        // node_exporter's textfile collector reads only "*.prom"; the temporary file beside it must not end so.
        let name = value.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard value.first == "/", value.hasSuffix(".prom"), name.count > ".prom".count, !value.contains("\0"),
            !value.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
        else {
            throw .invalidValue(
                line: line, key: key, value: value,
                expected: "an absolute file path ending in .prom, e.g. /var/lib/prometheus/node-exporter/pathmond.prom")
        }
        metricsTextfile = value
        keyLines[key] = line
    }

    /// Applies one `key = value` line of `[discretionary]`: `settle` and `grace`, durations from 0 to 1 day.
    mutating func setDiscretionary(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "settle" || key == "grace" else {
            warn(.unknownKey(line: line, section: "discretionary", key: key))
            return
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        guard let duration = TimeSpan.parse(value), duration <= .seconds(86_400) else {
            throw .invalidValue(
                line: line, key: key, value: value, expected: "a duration from 0 to 1d, e.g. 3s, 500ms or 2min")
        }
        if key == "settle" { discretionarySettle = duration } else { discretionaryGrace = duration }
        keyLines[key] = line
    }

    /// Applies one `key = value` line of `[usage]`: `interval`, a duration from 1 s to 1 h.
    mutating func setUsage(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "interval" else {
            warn(.unknownKey(line: line, section: "usage", key: key))
            return
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        guard let duration = TimeSpan.parse(value), duration >= .seconds(1), duration <= .seconds(3_600) else {
            throw .invalidValue(
                line: line, key: key, value: value, expected: "a duration from 1s to 1h, e.g. 60s or 5min")
        }
        usageInterval = duration
        keyLines[key] = line
    }
}

// SPDX-License-Identifier: Apache-2.0
/// Sizes for people, in decimal units as data plans are sold: 1 kB is 1,000 bytes, 1 GB 10^9.
enum ByteSize {
    /// "0 B", "999 B", "1.5 kB", "23 MB", "4.1 GB": three significant digits at most, one decimal below 10.
    static func text(_ bytes: UInt64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"]
        var unit = 0
        var scale: UInt64 = 1
        while unit < units.count - 1, bytes / scale >= 1_000 {
            scale *= 1_000
            unit += 1
        }
        guard unit > 0 else { return "\(bytes) B" }
        // Tenths, rounded half up, in integers: no floating point formatting to drift.
        let tenths = (bytes * 10 + scale / 2) / scale
        if tenths >= 100 { return "\((tenths + 5) / 10) \(units[unit])" }
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

// SPDX-License-Identifier: Apache-2.0
/// Sizes for people, in decimal units as data plans are sold: 1 kB is 1,000 bytes, 1 GB 10^9.
public enum ByteSize {
    /// "0 B", "999 B", "1.5 kB", "23 MB", "4.1 GB": one decimal below 10, whole numbers above, rounded half up.
    public static func text(_ bytes: UInt64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"]
        guard bytes >= 1_000 else { return "\(bytes) B" }
        var unit = 1
        var scale: UInt64 = 1_000
        // The unit whose rounded value stays below 1,000: 999,600 bytes is "1.0 MB", not "1000 kB".
        while unit < units.count - 1, rounded(bytes, scale) >= 1_000 {
            scale *= 1_000
            unit += 1
        }
        // In integers: no floating-point formatting to drift, no overflow near UInt64.max.
        let tenths = rounded(bytes, scale / 10)
        if tenths < 100 { return "\(tenths / 10).\(tenths % 10) \(units[unit])" }
        return "\(rounded(bytes, scale)) \(units[unit])"
    }

    /// `value / divisor`, rounded half up.
    private static func rounded(_ value: UInt64, _ divisor: UInt64) -> UInt64 {
        value / divisor + (value % divisor >= (divisor + 1) / 2 ? 1 : 0)
    }
}

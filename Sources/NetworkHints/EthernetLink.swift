// SPDX-License-Identifier: Apache-2.0
import PathModel

/// An Ethernet link's negotiated speed and duplex, as sysfs shows them (/sys/class/net/NAME/speed and duplex, the
/// figures ethtool prints). The kernel refuses to read them (EINVAL) while the link has no carrier, and a driver that
/// does not know says -1 and "unknown": all of these are no figure.
public enum EthernetLink {
    /// The figures of the interface `name` under `sysfsRoot`; nil when the speed is unknown.
    public static func quality(sysfsRoot: String, name: String) -> LinkQuality? {
        // The kernel's dev_valid_name forbids "/" and the dot names: anything else could escape the root.
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else { return nil }
        // Paths spelled as bytes: four String concatenations cost a carrier flip 2,000 instructions.
        var path: [CChar] = []
        path.reserveCapacity(sysfsRoot.utf8.count + name.utf8.count + 9)
        for byte in sysfsRoot.utf8 { path.append(CChar(bitPattern: byte)) }
        path.append(CChar(bitPattern: UInt8(ascii: "/")))
        for byte in name.utf8 { path.append(CChar(bitPattern: byte)) }
        path.append(CChar(bitPattern: UInt8(ascii: "/")))
        let directory = path.count
        func read(_ file: StaticString) -> [UInt8]? {
            path.removeSubrange(directory...)
            file.withUTF8Buffer { for byte in $0 { path.append(CChar(bitPattern: byte)) } }
            path.append(0)
            return path.withUnsafeBufferPointer { HintFiles.read(path: $0.baseAddress!, maximumSize: 64) }
        }
        return figures(speed: read("speed"), duplex: read("duplex"))
    }

    /// The figures from the two files' text: a speed in Mb/s ("1000\n"), a duplex ("full", "half", "unknown").
    static func quality(speed: String?, duplex: String?) -> LinkQuality? {
        figures(speed: speed.map { Array($0.utf8) }, duplex: duplex.map { Array($0.utf8) })
    }

    /// The same from the files' bytes, read where they lie: every carrier flip reads them, and a String per file,
    /// its newline dropped into another and Int64's parser cost 4,000 instructions of the flip (issue 41).
    private static func figures(speed: [UInt8]?, duplex: [UInt8]?) -> LinkQuality? {
        guard let speed, let megabits = decimal(withoutNewline(speed[...])), megabits > 0, megabits <= UInt32.max
        else { return nil }
        let fullDuplex: Bool? =
            switch duplex.map({ withoutNewline($0[...]) }) {
            case let word? where word.elementsEqual("full".utf8): true
            case let word? where word.elementsEqual("half".utf8): false
            default: nil
            }
        return LinkQuality(source: .ethernet, speedMbps: UInt32(megabits), isFullDuplex: fullDuplex)
    }

    /// Without the one newline sysfs ends an attribute with.
    private static func withoutNewline(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes
    }

    /// A decimal number as `Int64(String)` reads one: an optional sign, then at least one digit and nothing else;
    /// nil past Int64's range.
    private static func decimal(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var digits = bytes
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowed, !carried else { return nil }
            magnitude = sum
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}

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
        // The path and both files' bytes on the stack: every carrier flip reads them, and the path's array and one
        // per file, made and freed, cost the flip 3,500 instructions (issue 41).
        let directory = sysfsRoot.utf8.count + name.utf8.count + 2
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: directory + 8) { path in
            var end = 0
            func append(_ bytes: some Sequence<UInt8>) {
                // A string's bytes copied as one block where it holds them so (a native string does): taken a byte
                // at a time from its view, the root and the name cost a carrier flip 750 instructions.
                let copied: Void? = bytes.withContiguousStorageIfAvailable { block in
                    guard let start = block.baseAddress else { return }
                    UnsafeMutableRawPointer(path.baseAddress! + end).copyMemory(from: start, byteCount: block.count)
                    end += block.count
                }
                guard copied == nil else { return }
                for byte in bytes {
                    path[end] = CChar(bitPattern: byte)
                    end += 1
                }
            }
            append(sysfsRoot.utf8)
            append(CollectionOfOne(UInt8(ascii: "/")))
            append(name.utf8)
            append(CollectionOfOne(UInt8(ascii: "/")))
            // A sysfs attribute is at most 64 bytes here: a longer one is not a speed or a duplex.
            return withUnsafeTemporaryAllocation(byteCount: 2 * (attributeSize + 1), alignment: 1) { contents in
                func read(_ file: StaticString, into buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer? {
                    end = directory
                    file.withUTF8Buffer { append($0) }
                    append(CollectionOfOne(0))
                    return HintFiles.read(path: path.baseAddress!, into: buffer)
                }
                let speed = read(
                    "speed", into: UnsafeMutableRawBufferPointer(rebasing: contents[..<(attributeSize + 1)]))
                let duplex = read(
                    "duplex", into: UnsafeMutableRawBufferPointer(rebasing: contents[(attributeSize + 1)...]))
                return figures(speed: speed, duplex: duplex)
            }
        }
    }

    /// The most bytes of a speed or duplex file read.
    private static let attributeSize = 64

    /// The figures from the two files' text: a speed in Mb/s ("1000\n"), a duplex ("full", "half", "unknown").
    static func quality(speed: String?, duplex: String?) -> LinkQuality? {
        figures(speed: speed.map { Array($0.utf8) }, duplex: duplex.map { Array($0.utf8) })
    }

    /// The same from the files' bytes, read where they lie: every carrier flip reads them, and a String per file,
    /// its newline dropped into another and Int64's parser cost 4,000 instructions of the flip (issue 41).
    private static func figures<Bytes: BidirectionalCollection<UInt8>>(speed: Bytes?, duplex: Bytes?) -> LinkQuality? {
        guard let speed, let megabits = decimal(withoutNewline(speed)), megabits > 0, megabits <= UInt32.max
        else { return nil }
        var fullDuplex: Bool?
        if let duplex {
            let word = withoutNewline(duplex)
            if word.elementsEqual("full".utf8) {
                fullDuplex = true
            } else if word.elementsEqual("half".utf8) {
                fullDuplex = false
            }
        }
        return LinkQuality(source: .ethernet, speedMbps: UInt32(megabits), isFullDuplex: fullDuplex)
    }

    /// Without the one newline sysfs ends an attribute with.
    private static func withoutNewline<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...]
    }

    /// A decimal number as `Int64(String)` reads one: an optional sign, then at least one digit and nothing else;
    /// nil past Int64's range.
    private static func decimal<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int64? {
        var digits = bytes[...]
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

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// RTM_GETLINK for one interface, and the reading of its answer: the name and the byte counters of IFLA_STATS64.
/// What `LinkCounterReader` asks a kernel without RTM_GETSTATS (before 4.7; `LinkStatsMessage` elsewhere). Written
/// by hand, as the route look-ups are: libnl's link object parses every attribute of the message (a few kilobytes
/// of them) into an allocated cache object, 28,000 instructions a reading, and a reading is taken every time a
/// network comes or goes, which a default route's flip does to a wired network (issue 41).
enum LinkCounterMessage {
    static let getLink: UInt16 = 18  // RTM_GETLINK
    static let newLink: UInt16 = 16  // RTM_NEWLINK
    static let ifName: UInt16 = 3  // IFLA_IFNAME
    static let stats64: UInt16 = 23  // IFLA_STATS64
    /// nlmsghdr (16) and ifinfomsg (16): where a link message's attributes start.
    static let attributesOffset = 32

    /// RTM_GETLINK with NLM_F_REQUEST for the interface `index`.
    static func request(index: Int32, sequence: UInt32) -> [UInt8] {
        // Stored into zeroed room, not appended: a reading is taken at every network change.
        var message = [UInt8](repeating: 0, count: attributesOffset)
        message.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: UInt32(attributesOffset).littleEndian, toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: getLink.littleEndian, toByteOffset: 4, as: UInt16.self)
            bytes.storeBytes(of: UInt16(1).littleEndian, toByteOffset: 6, as: UInt16.self)  // NLM_F_REQUEST
            bytes.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt32.self)
            // ifinfomsg after the header's port id: family AF_UNSPEC, padding and type zero, then the index.
            bytes.storeBytes(of: index.littleEndian, toByteOffset: 20, as: Int32.self)
        }
        return message
    }

    /// What one datagram says to the request with `sequence`.
    enum Answer: Equatable {
        case reading(CounterReading)
        /// An error (no such interface) or a link message without a name or counters.
        case none
        /// Not the answer to this request.
        case unrelated
    }

    /// Read where the datagram lies (the reader's buffer), not from a copy of it.
    static func answer<Datagram: RandomAccessCollection<UInt8>>(
        _ bytes: Datagram, index: Int32, sequence: UInt32
    ) -> Answer where Datagram.Index == Int {
        typealias Bytes = RouteLookupMessage
        guard let length = Bytes.u32(bytes, 0), length >= 16, Int(length) <= bytes.count,
            let type = Bytes.u16(bytes, 4), Bytes.u32(bytes, 8) == sequence
        else { return .unrelated }
        guard type == newLink, Int(length) >= attributesOffset else { return .none }
        let end = Int(length)
        var name: String?
        var counters: ByteCounts?
        var position = attributesOffset
        while position + 4 <= end, let size16 = Bytes.u16(bytes, position), let kind = Bytes.u16(bytes, position + 2) {
            let size = Int(size16)
            guard size >= 4, position + size <= end else { break }
            let value = (position + 4)..<(position + size)
            switch kind & 0x3fff {
            case ifName:
                // NUL-terminated.
                let start = bytes.startIndex
                let text = bytes[(start + value.lowerBound)..<(start + value.upperBound)].prefix { $0 != 0 }
                name = String(decoding: text, as: UTF8.self)
            case stats64 where value.count >= 32:
                // struct rtnl_link_stats64: rx_packets, tx_packets, rx_bytes, tx_bytes, ... (u64 each).
                counters = ByteCounts(
                    sent: u64(bytes, value.lowerBound + 24), received: u64(bytes, value.lowerBound + 16))
            default: break
            }
            position += (size + 3) & ~3
        }
        guard let name, !name.isEmpty, let counters else { return .none }
        return .reading(CounterReading(index: index, name: name, counters: counters))
    }

    /// The little-endian u64 at `offset` (in range: the caller checked the attribute's size).
    private static func u64<Datagram: RandomAccessCollection<UInt8>>(_ bytes: Datagram, _ offset: Int) -> UInt64
    where Datagram.Index == Int {
        let start = bytes.startIndex + offset
        var value: UInt64 = 0
        for position in (start..<(start + 8)).reversed() { value = value << 8 | UInt64(bytes[position]) }
        return value
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// RTM_GETSTATS for one interface with only IFLA_STATS_LINK_64 asked, and the reading of its answer: the byte
/// counters and nothing else. What `LinkCounterReader` asks first: RTM_GETLINK's answer carries every attribute of
/// the link (1.5 KB for a veth, more for a real NIC) for the kernel to fill and pathmond to walk, this one 224
/// bytes with one attribute, read at fixed offsets. A reading is taken every time a network comes or goes, which a
/// default route's flip does to a wired network (issue 41). Linux 4.7 and later; an older kernel says
/// EOPNOTSUPP (`Answer.unsupported`) and the reader asks RTM_GETLINK (`LinkCounterMessage`) instead.
enum LinkStatsMessage {
    static let getStats: UInt16 = 94  // RTM_GETSTATS
    static let newStats: UInt16 = 92  // RTM_NEWSTATS
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let link64: UInt16 = 1  // IFLA_STATS_LINK_64
    /// nlmsghdr (16) and if_stats_msg (family, two pads, ifindex, filter_mask: 12).
    static let length = 28
    /// Linux's EOPNOTSUPP: no RTM_GETSTATS (before 4.7).
    static let notSupported: Int32 = 95

    /// Writes RTM_GETSTATS with NLM_F_REQUEST for `index` into `message` (`length` bytes): the reader keeps one
    /// request and writes each into it, so a reading allocates nothing.
    static func write(index: Int32, sequence: UInt32, into message: UnsafeMutableRawBufferPointer) {
        precondition(message.count >= length)
        message.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 0, as: UInt32.self)
        message.storeBytes(of: getStats.littleEndian, toByteOffset: 4, as: UInt16.self)
        message.storeBytes(of: UInt16(1).littleEndian, toByteOffset: 6, as: UInt16.self)  // NLM_F_REQUEST
        message.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt32.self)
        message.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)  // port id: the kernel's
        // if_stats_msg: family AF_UNSPEC and the padding zero, the index, then the filter: IFLA_STATS_LINK_64 only.
        message.storeBytes(of: UInt32(0), toByteOffset: 16, as: UInt32.self)
        message.storeBytes(of: index.littleEndian, toByteOffset: 20, as: Int32.self)
        message.storeBytes(of: (UInt32(1) << (link64 - 1)).littleEndian, toByteOffset: 24, as: UInt32.self)
    }

    /// What one datagram says to the request with `sequence`.
    enum Answer: Equatable {
        case counters(ByteCounts)
        /// An error (no such interface) or a stats message without the counters.
        case none
        /// The kernel has no RTM_GETSTATS: ask RTM_GETLINK.
        case unsupported
        /// Not the answer to this request.
        case unrelated
    }

    /// Read where the datagram lies (the reader's buffer), at fixed offsets: the one attribute asked for comes
    /// first, and is looked for further only if it does not.
    static func answer(_ bytes: UnsafeRawBufferPointer, index: Int32, sequence: UInt32) -> Answer {
        guard bytes.count >= 16 else { return .unrelated }
        let end = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
        let type = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
        guard end >= 16, end <= bytes.count,
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) == sequence
        else { return .unrelated }
        if type == error {
            guard end >= 20 else { return .none }
            let code = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: Int32.self))
            return code == -notSupported ? .unsupported : .none
        }
        guard type == newStats, end >= length,
            Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 20, as: Int32.self)) == index
        else { return .none }
        // The attributes start where the request ended: the answer's header is as long.
        var position = length
        while position + 4 <= end {
            let size = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
            let kind = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 2, as: UInt16.self))
            guard size >= 4, position + size <= end else { return .none }
            // struct rtnl_link_stats64: rx_packets, tx_packets, rx_bytes, tx_bytes, ... (u64 each).
            if kind & 0x3fff == link64 {
                guard size >= 4 + 32 else { return .none }
                let received = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 20, as: UInt64.self))
                let sent = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 28, as: UInt64.self))
                return .counters(ByteCounts(sent: sent, received: received))
            }
            position += (size + 3) & ~3
        }
        return .none
    }
}

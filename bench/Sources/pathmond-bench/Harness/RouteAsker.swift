// SPDX-License-Identifier: Apache-2.0
import CBenchSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the kernel's routing decision the way pathmond does, for references that must cost what pathmond's look-ups
/// cost: IPv4 RTM_GETROUTE requests packed into datagrams, each datagram sent and its replies read back 64 to a
/// recvmmsg (the kernel answers inside the send, so every reply is queued when it returns).
final class RouteAsker {
    /// One look-up: `ip route get REMOTE [from LOCAL] uid 0`, as pathmond asks for root.
    struct Query {
        var remote: [UInt8]
        var local: [UInt8]?
    }

    /// Requests packed for sending, and how many each datagram holds.
    typealias Datagram = (bytes: [UInt8], requests: Int)

    private let socket: Int32
    private let slots: UnsafeMutableRawBufferPointer
    private var vectors: [iovec]
    private var headers: [bench_mmsghdr]
    private static let slotCount = 64
    private static let slotSize = 1024

    /// A request socket in the calling thread's namespace, with a receive buffer that holds a datagram's replies.
    init() throws(BenchError) {
        socket = try RTNetlink.openSocket(groups: 0)
        var size = Int32(1 << 20)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        slots = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.slotCount * Self.slotSize, alignment: 8)
        vectors = (0..<Self.slotCount).map { [slots] in
            iovec(iov_base: slots.baseAddress! + $0 * Self.slotSize, iov_len: Self.slotSize)
        }
        headers = [bench_mmsghdr](repeating: bench_mmsghdr(), count: Self.slotCount)
    }

    deinit {
        close(socket)
        slots.deallocate()
    }

    /// Sends one datagram and reads its replies; how many came.
    func ask(_ datagram: Datagram) -> Int {
        guard datagram.bytes.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == datagram.bytes.count
        else { return 0 }
        var replies = 0
        while replies < datagram.requests {
            let wanted = min(datagram.requests - replies, Self.slotCount)
            let received = vectors.withUnsafeMutableBufferPointer { vectors in
                for index in 0..<wanted {
                    headers[index] = bench_mmsghdr()
                    headers[index].msg_hdr.msg_iov = UnsafeMutableRawPointer(vectors.baseAddress! + index)
                    headers[index].msg_hdr.msg_iovlen = 1
                }
                return bench_recvmmsg(socket, &headers, UInt32(wanted), Int32(MSG_DONTWAIT))
            }
            guard received > 0 else { break }
            replies += Int(received)
        }
        return replies
    }

    /// `queries` packed `perDatagram` to a datagram (pathmond sends 128), numbered from 1.
    static func pack(_ queries: [Query], perDatagram: Int = 128) -> [Datagram] {
        var datagrams: [Datagram] = []
        var sequence: UInt32 = 0
        for start in stride(from: 0, to: queries.count, by: perDatagram) {
            let packed = queries[start..<min(start + perDatagram, queries.count)]
            var bytes: [UInt8] = []
            for query in packed {
                sequence += 1
                bytes += request(query, sequence: sequence)
            }
            datagrams.append((bytes, packed.count))
        }
        return datagrams
    }

    /// RTM_GETROUTE for an IPv4 destination, from `local` if given, as user 0, looked up in the tables as a packet
    /// would be (RTM_F_LOOKUP_TABLE): the request pathmond's RouteLookupMessage writes.
    private static func request(_ query: Query, sequence: UInt32) -> [UInt8] {
        var body: [UInt8] = [UInt8(AF_INET), 32, query.local == nil ? 0 : 32, 0, 0, 0, 0, 0]  // rtmsg to rtm_type
        body += bytes(of: UInt32(0x1000))  // rtm_flags: RTM_F_LOOKUP_TABLE
        body += attribute(1, query.remote)  // RTA_DST
        if let local = query.local { body += attribute(2, local) }  // RTA_SRC
        body += attribute(25, bytes(of: UInt32(0)))  // RTA_UID
        return bytes(of: UInt32(RTNetlink.headerSize + body.count)) + bytes(of: UInt16(26))  // RTM_GETROUTE
            + bytes(of: RTNetlink.request) + bytes(of: sequence) + bytes(of: UInt32(0)) + body
    }

    private static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        bytes(of: UInt16(4 + payload.count)) + bytes(of: type) + payload
            + [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4)
    }

    private static func bytes<Value: FixedWidthInteger>(of value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

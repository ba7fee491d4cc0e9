// SPDX-License-Identifier: Apache-2.0
import CBenchSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's share of a WatchFlow fan-out: the two route look-ups per flow that pathmond asks after a change
/// (`ip route get REMOTE from LOCAL uid 0` for the connection, `ip route get REMOTE uid 0` for a new one), asked
/// as pathmond asks them: 128 requests to a datagram, the replies read 64 to a recvmmsg. Timed in pathmond's own
/// namespace once a change has reached every subscriber, against the same routes: look-ups make no notification,
/// so pathmond stays idle. With the raw fan-out it is the floor of a daemon that follows the kernel's own routing
/// decision for every flow (issue 12) before it tells the flow's subscriber.
final class FlowLookups {
    private let socket: Int32
    /// The requests packed into datagrams, and how many each holds.
    private let datagrams: [(bytes: [UInt8], requests: Int)]
    /// The look-ups one `askAll()` asks: two per flow.
    let count: Int
    private static let perDatagram = 128
    private static let slots = 64
    private static let slotSize = 1024

    /// Opens a request socket in `namespace` for the flows from `local` to each of `remotes` (IPv4, network order).
    init(in namespace: BenchNamespace, local: [UInt8], remotes: [[UInt8]]) throws(BenchError) {
        socket = try namespace.entered { () throws(BenchError) in try RTNetlink.openSocket(groups: 0) }
        var size = Int32(1 << 20)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        var requests: [[UInt8]] = []
        for remote in remotes {
            requests.append(Self.request(remote: remote, local: local))
            requests.append(Self.request(remote: remote, local: nil))
        }
        count = requests.count
        var datagrams: [(bytes: [UInt8], requests: Int)] = []
        var sequence: UInt32 = 0
        for start in stride(from: 0, to: requests.count, by: Self.perDatagram) {
            let packed = requests[start..<min(start + Self.perDatagram, requests.count)]
            var datagram: [UInt8] = []
            for request in packed {
                sequence += 1
                var numbered = request
                withUnsafeBytes(of: sequence) { numbered.replaceSubrange(8..<12, with: $0) }
                datagram += numbered
            }
            datagrams.append((datagram, packed.count))
        }
        self.datagrams = datagrams
    }

    deinit { close(socket) }

    /// Asks every look-up and reads every reply; the time it took, in ns, and how many replies came.
    func askAll() -> (nanoseconds: UInt64, replies: Int) {
        let slots = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.slots * Self.slotSize, alignment: 8)
        defer { slots.deallocate() }
        var vectors = (0..<Self.slots).map {
            iovec(iov_base: slots.baseAddress! + $0 * Self.slotSize, iov_len: Self.slotSize)
        }
        var headers = [bench_mmsghdr](repeating: bench_mmsghdr(), count: Self.slots)
        let start = monotonicNanoseconds()
        var replies = 0
        for (datagram, requests) in datagrams {
            guard datagram.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == datagram.count else {
                continue
            }
            // The kernel answers inside the send: every reply is queued when it returns.
            var waiting = requests
            while waiting > 0 {
                let wanted = min(waiting, Self.slots)
                let received = vectors.withUnsafeMutableBufferPointer { vectors in
                    for index in 0..<wanted {
                        headers[index] = bench_mmsghdr()
                        headers[index].msg_hdr.msg_iov = vectors.baseAddress! + index
                        headers[index].msg_hdr.msg_iovlen = 1
                    }
                    return bench_recvmmsg(socket, &headers, UInt32(wanted), Int32(MSG_DONTWAIT))
                }
                guard received > 0 else { break }
                waiting -= Int(received)
                replies += Int(received)
            }
        }
        return (monotonicNanoseconds() - start, replies)
    }

    /// RTM_GETROUTE for an IPv4 destination, from `local` if given, as user 0 (root's flows), looked up in the
    /// tables as a packet would be (RTM_F_LOOKUP_TABLE); sequence 0, numbered when packed.
    private static func request(remote: [UInt8], local: [UInt8]?) -> [UInt8] {
        var body: [UInt8] = [UInt8(AF_INET), 32, local == nil ? 0 : 32, 0, 0, 0, 0, 0]  // rtmsg up to rtm_type
        body += withUnsafeBytes(of: UInt32(0x1000)) { Array($0) }  // rtm_flags: RTM_F_LOOKUP_TABLE
        body += attribute(1, remote)  // RTA_DST
        if let local { body += attribute(2, local) }  // RTA_SRC
        body += attribute(25, withUnsafeBytes(of: UInt32(0)) { Array($0) })  // RTA_UID
        var message = withUnsafeBytes(of: UInt32(RTNetlink.headerSize + body.count)) { Array($0) }
        message += withUnsafeBytes(of: UInt16(26)) { Array($0) }  // RTM_GETROUTE
        message += withUnsafeBytes(of: RTNetlink.request) { Array($0) }
        message += [UInt8](repeating: 0, count: 8)  // sequence, port id
        return message + body
    }

    private static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt16(4 + payload.count)) { Array($0) } + withUnsafeBytes(of: type) { Array($0) }
            + payload + [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4)
    }
}

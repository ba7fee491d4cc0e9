// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// A plain NETLINK_ROUTE socket that asks the kernel's routing decision, one RTM_GETROUTE at a time: the same
/// question `ip route get` asks. It never waits: rtnetlink answers a request inside the sendmsg that carries it
/// (the kernel's handler runs in the sender's context and queues the reply before the call returns, a dump's first
/// part included; the next parts are made inside recvmsg), so every reply is there to read when the send returns.
/// Replies are read without blocking (MSG_DONTWAIT): one that is not there was dropped (ENOBUFS) and its query
/// goes unanswered this time, to be asked again on the next change, instead of holding the watcher's loop.
///
/// Not thread-safe: its owner calls it from one thread (or queue) at a time.
final class RouteLookupSocket {
    let descriptor: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 8192)
    /// Where a batch of replies is read in one recvmmsg: a slot per datagram, far larger than a reply (a route
    /// look-up's is about 100 bytes); a query whose reply did not fit (MSG_TRUNC: a long encapsulation, say) is
    /// asked again alone, into the 8 KiB buffer.
    private var slots: [UInt8]
    private let slotSize: Int
    /// recvmmsg's headers and vectors, one per slot, kept for the socket's life like the slots.
    private var headers = [pathmond_mmsghdr](repeating: pathmond_mmsghdr(), count: RouteLookupSocket.slotCount)
    private var vectors = [iovec](repeating: iovec(), count: RouteLookupSocket.slotCount)
    /// A batch's requests, written in place for each `decide`: kept for the socket's life, not made per change.
    private var requests = [UInt8](repeating: 0, count: RouteLookupSocket.batchSize * RouteLookupMessage.largestRequest)
    private static let slotCount = 64

    /// `replySlotSize`: room for one reply in a batch read (tests make it small to cut replies short);
    /// `receiveBuffer`: the socket's receive buffer (tests make it small, so that the kernel drops replies).
    init(replySlotSize: Int = 1024, receiveBuffer: Int = RouteLookupSocket.receiveBufferSize) throws(NetlinkError) {
        slotSize = replySlotSize
        slots = [UInt8](repeating: 0, count: Self.slotCount * replySlotSize)
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw .system(errno: errno) }
        // Room for a whole batch of replies (see `decide(_:)`): the kernel drops a reply that does not fit.
        var size = Int32(receiveBuffer)
        if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        self.descriptor = descriptor
    }

    /// How many requests go out in one datagram. The kernel handles a datagram's messages one after the other and
    /// queues one reply each (a few hundred bytes of buffer apiece); a batch this size fits the buffer below with
    /// room to spare, and a reply that does not fit would be dropped, not delayed.
    static let batchSize = 128
    static let receiveBufferSize = 1 << 20

    deinit { close(descriptor) }

    /// The kernel's decision for `query`, or nil if it could not be asked or did not answer.
    func decide(_ query: RouteQuery) -> RouteDecision? {
        sequence &+= 1
        let request = RouteLookupMessage.request(for: query, sequence: sequence)
        return exchange(request) { reply, sequence in
            switch RouteLookupMessage.reply(reply, sequence: sequence) {
            case .decision(let decision): return .some(decision)
            case .failed: return .some(nil)
            case .unrelated: return nil
            }
        } ?? nil
    }

    /// The kernel's decisions for many queries: requests sent `batchSize` to a datagram, the replies read back in
    /// bulk, matched by sequence number. A query the kernel did not answer (a failure, a timeout) is missing.
    func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers {
        var answers: RouteAnswers = []
        answers.reserveCapacity(queries.count)
        var pending = Array(queries)[...]
        while !pending.isEmpty {
            let batch = pending.prefix(Self.batchSize)
            pending = pending.dropFirst(batch.count)
            var waiting = WaitingReplies(first: sequence &+ 1, queries: batch)
            // Written in place into the socket's request buffer (room for a batch of the longest requests).
            let sent = requests.withUnsafeMutableBytes { bytes in
                var written = 0
                for query in batch {
                    sequence &+= 1
                    written += RouteLookupMessage.writeRequest(for: query, sequence: sequence, into: bytes, at: written)
                }
                return send(UnsafeRawBufferPointer(rebasing: bytes[..<written]))
            }
            guard sent else { return answers }
            readReplies(into: &answers, waiting: &waiting)
        }
        return answers
    }

    /// Reads replies until every request in `waiting` is answered or none is queued, up to `slotCount` datagrams
    /// per system call: one recv per reply cost a fifth of a flow look-up.
    private func readReplies(into answers: inout RouteAnswers, waiting: inout WaitingReplies) {
        var truncated: [RouteQuery] = []
        // Once the batch's replies are all read, so that no reply of it is skipped as another request's.
        defer {
            for query in truncated {
                if let decision = decide(query) { answers.append((query, decision)) }
            }
        }
        while !waiting.isEmpty {
            let wanted = min(waiting.count, Self.slotCount)
            let received = slots.withUnsafeMutableBytes { slots in
                vectors.withUnsafeMutableBufferPointer { vectors in
                    for index in 0..<wanted {
                        vectors[index] = iovec(
                            iov_base: slots.baseAddress! + index * slotSize, iov_len: slotSize)
                        headers[index] = pathmond_mmsghdr()
                        headers[index].msg_hdr.msg_iov = vectors.baseAddress! + index
                        headers[index].msg_hdr.msg_iovlen = 1
                    }
                    // What is queued, without waiting: the replies were queued during the send.
                    return pathmond_recvmmsg(descriptor, &headers, UInt32(wanted), Int32(MSG_DONTWAIT))
                }
            }
            // ENOBUFS: some replies were dropped, the ones queued before it are still there to read.
            if received < 0 && (errno == EINTR || errno == ENOBUFS) { continue }
            guard received > 0 else { return }
            slots.withUnsafeBytes { slots in
                for index in 0..<Int(received) {
                    let start = index * slotSize
                    // Read in its slot: a copy per reply was an allocation for each of a thousand flows' answers.
                    let bytes = UnsafeRawBufferPointer(
                        rebasing: slots[start..<start + min(Int(headers[index].msg_len), slotSize)])
                    // One reply per datagram; one that is not for this batch (a late reply) is skipped.
                    guard let sequence = RouteLookupMessage.u32(bytes, 8), let query = waiting.take(sequence) else {
                        continue
                    }
                    if headers[index].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 {
                        truncated.append(query)
                    } else if case .decision(let decision) = RouteLookupMessage.reply(bytes, sequence: sequence) {
                        answers.append((query, decision))
                    }
                }
            }
        }
    }

    /// The gateway's neighbour entry if the kernel has resolved it, nil if not (or no answer).
    func neighbour(_ gateway: GatewayKey) -> Neighbour? {
        sequence &+= 1
        let request = NeighbourRequestMessage.lookUp(gateway, sequence: sequence)
        return exchange(request) { reply, sequence in
            switch NeighbourRequestMessage.answer(reply, to: gateway, sequence: sequence) {
            case .resolved(let neighbour): return .some(neighbour)
            case .unresolved: return .some(nil)
            case .unrelated: return nil
            }
        } ?? nil
    }

    /// Asks the kernel to resolve the gateway (NTF_USE); the result comes as a neighbour notification. The
    /// acknowledgement says whether the kernel took the request: without CAP_NET_ADMIN it refuses with EPERM.
    func resolve(_ gateway: GatewayKey) -> GatewayResolution {
        sequence &+= 1
        let code = exchange(NeighbourRequestMessage.resolve(gateway, sequence: sequence)) { reply, sequence in
            guard RouteLookupMessage.u32(reply, 8) == sequence else { return Int32?.none }
            guard RouteLookupMessage.u16(reply, 4) == RouteLookupMessage.error else { return 0 }
            // nlmsgerr: a negative errno after the header, 0 for an acknowledgement.
            return RouteLookupMessage.u32(reply, 16).map { Int32(bitPattern: $0) } ?? 0
        }
        guard let code else { return .noReply }
        return code < 0 ? .refused(errno: -code) : .requested
    }

    /// The IPv6 routes that expire, as a dump reads them now: how long each has left. nil when the dump could not
    /// be read whole (a reply missing).
    func expiringRoutes() -> [RouteExpiry]? {
        sequence &+= 1
        guard send(RouteLookupMessage.ipv6RouteDump(sequence: sequence)) else { return nil }
        // A dump's datagrams are larger than a look-up's reply (up to 32 KiB): read them into a buffer that fits.
        var datagram = [UInt8](repeating: 0, count: 64 << 10)
        var found: [RouteExpiry] = []
        while true {
            let received = datagram.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            let (expiries, done) = RouteLookupMessage.expiries(
                inDumpReply: Array(datagram[..<received]), sequence: sequence)
            found += expiries
            if done { return found }
        }
    }

    /// Sends one request and reads datagrams until `read` recognises the reply to it (non-nil); nil when the
    /// request could not be sent or no reply came.
    private func exchange<Answer>(_ request: [UInt8], _ read: ([UInt8], UInt32) -> Answer?) -> Answer? {
        guard send(request) else { return nil }
        // Replies to earlier requests that timed out may still arrive first: skip them by sequence number.
        for _ in 0..<8 {
            let received = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && (errno == EINTR || errno == ENOBUFS) { continue }
            guard received > 0 else { return nil }
            if let answer = read(Array(buffer[..<received]), sequence) { return answer }
        }
        return nil
    }

    /// Sends one datagram (one request, or several back to back) to the kernel.
    private func send(_ datagram: [UInt8]) -> Bool {
        datagram.withUnsafeBytes { send($0) }
    }

    private func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        return sent == bytes.count
    }
}

/// The queries of one datagram whose replies are still to come, by sequence number: a batch's requests are
/// numbered consecutively, so an array is the table (a dictionary hashed each of a thousand flows' queries twice).
struct WaitingReplies {
    private let first: UInt32
    /// The batch's queries as the caller holds them (its storage shared, not copied: a copy was an allocation on
    /// every look-up), and which have been answered, a bit each.
    private let queries: ArraySlice<RouteQuery>
    private var answered: (UInt64, UInt64) = (0, 0)
    /// How many are still to come.
    private(set) var count: Int

    /// At most `RouteLookupSocket.batchSize` (128) queries, one bit each.
    init(first: UInt32, queries: ArraySlice<RouteQuery>) {
        precondition(queries.count <= 128, "a batch is at most 128 queries")
        self.first = first
        self.queries = queries
        count = queries.count
    }

    init(first: UInt32, queries: [RouteQuery]) {
        self.init(first: first, queries: queries[...])
    }

    var isEmpty: Bool { count == 0 }

    /// The query asked with `sequence`, once: nil for a sequence not in the batch (a late reply to an earlier
    /// one, which wraps far past the end) or already answered.
    mutating func take(_ sequence: UInt32) -> RouteQuery? {
        let offset = Int(sequence &- first)
        guard offset < queries.count else { return nil }
        let bit: UInt64 = 1 << UInt64(offset % 64)
        if offset < 64 {
            guard answered.0 & bit == 0 else { return nil }
            answered.0 |= bit
        } else {
            guard answered.1 & bit == 0 else { return nil }
            answered.1 |= bit
        }
        count -= 1
        return queries[queries.startIndex + offset]
    }
}

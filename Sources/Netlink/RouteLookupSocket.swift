internal import CNetlink
import Glibc
import PathModel

/// A plain NETLINK_ROUTE socket that asks the kernel's routing decision, one RTM_GETROUTE at a time: the same
/// question `ip route get` asks. Requests only, blocking with a short timeout, so an answer that never comes costs
/// one timeout and no hang.
///
/// Not thread-safe: its owner calls it from one thread (or queue) at a time.
final class RouteLookupSocket {
    private let descriptor: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 8192)

    init() throws(NetlinkError) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw .system(errno: errno) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
    }

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

    /// The kernel's decisions for many queries, asked in datagrams of up to `requestsPerDatagram` requests: the
    /// kernel answers each request of a datagram in turn, so a thousand watched flows cost a few dozen system calls
    /// per routing change, not two thousand. A query without an answer is missing from the result.
    func decide(_ queries: some Collection<RouteQuery>) -> [RouteQuery: RouteDecision] {
        var decisions: [RouteQuery: RouteDecision] = [:]
        decisions.reserveCapacity(queries.count)
        var pending = queries[...]
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.requestsPerDatagram)
            pending = pending.dropFirst(chunk.count)
            var asked: [UInt32: RouteQuery] = [:]
            var datagram: [UInt8] = []
            for query in chunk {
                sequence &+= 1
                asked[sequence] = query
                datagram += RouteLookupMessage.request(for: query, sequence: sequence)
            }
            guard send(datagram) else { continue }
            // One reply datagram per request; replies to earlier requests that timed out are skipped.
            var attempts = 0
            while !asked.isEmpty, attempts < 2 * chunk.count + 8 {
                attempts += 1
                guard let reply = receive() else { break }
                guard let replySequence = RouteLookupMessage.u32(reply, 8), let query = asked[replySequence] else {
                    continue
                }
                asked[replySequence] = nil
                if case .decision(let decision) = RouteLookupMessage.reply(reply, sequence: replySequence) {
                    decisions[query] = decision
                }
            }
        }
        return decisions
    }

    /// Requests per datagram: their replies (a few hundred bytes of buffer each) fit the socket's default receive
    /// buffer many times over, so none is dropped.
    static let requestsPerDatagram = 32

    /// Asks the kernel to resolve the gateway (NTF_USE); the result comes as a neighbour notification.
    func resolve(_ gateway: GatewayKey) {
        sequence &+= 1
        _ = exchange(NeighbourRequestMessage.resolve(gateway, sequence: sequence)) { reply, sequence in
            RouteLookupMessage.u32(reply, 8) == sequence ? .some(()) : nil
        }
    }

    /// Sends one request and reads datagrams until `read` recognises the reply to it (non-nil); nil when the
    /// request could not be sent or no reply came.
    private func exchange<Answer>(_ request: [UInt8], _ read: ([UInt8], UInt32) -> Answer?) -> Answer? {
        guard send(request) else { return nil }
        // Replies to earlier requests that timed out may still arrive first: skip them by sequence number.
        for _ in 0..<8 {
            guard let reply = receive() else { return nil }
            if let answer = read(reply, sequence) { return answer }
        }
        return nil
    }

    /// Sends one datagram to the kernel; whether it went whole.
    private func send(_ datagram: [UInt8]) -> Bool {
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        let sent = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        return sent == datagram.count
    }

    /// The next datagram, or nil on a timeout or an error.
    private func receive() -> [UInt8]? {
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            return Array(buffer[..<received])
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// Reads one interface's byte counters with an RTM_GETSTATS request (`LinkStatsMessage`) on a socket of its own:
/// what usage per network is counted from. The kernel answers inside the send, so a read costs a round trip to the
/// kernel and never waits on the network. Not /sys/class/net: that shows the network namespace sysfs was mounted
/// in, not the daemon's. A kernel older than 4.7, which has no RTM_GETSTATS, is asked RTM_GETLINK
/// (`LinkCounterMessage`) from its first refusal on. The messages are built and read by hand, into buffers kept
/// from one reading to the next: a reading allocates nothing.
///
/// Use from one thread at a time (the main loop).
public final class LinkCounterReader {
    private let descriptor: Int32
    private var sequence: UInt32 = 0
    /// False once the kernel refused RTM_GETSTATS.
    private(set) var asksStats = true
    /// The RTM_GETSTATS request, written anew for each reading.
    private var request = [UInt8](repeating: 0, count: LinkStatsMessage.length)
    /// One answer: RTM_GETSTATS's is a few hundred bytes; RTM_GETLINK's (the fallback) carries all the link's
    /// attributes, a few kilobytes, and a longer one is cut and read as far as it goes.
    private var buffer = [UInt8](repeating: 0, count: 32 << 10)

    public init() throws(NetlinkError) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw .system(errno: errno) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The interface's counters now; nil when there is no such interface (it went away), or the kernel could not
    /// answer (then the next reading covers the interval).
    public func counters(index: Int32) -> ByteCounts? {
        if asksStats {
            switch statsCounters(index: index) {
            case .counters(let counters): return counters
            case .unsupported: asksStats = false
            case .none, .unrelated: return nil
            }
        }
        return linkCounters(index: index)
    }

    /// RTM_GETSTATS, the request and its answer in the kept buffers.
    func statsCounters(index: Int32) -> LinkStatsMessage.Answer {
        sequence &+= 1
        let sequence = sequence
        request.withUnsafeMutableBytes { LinkStatsMessage.write(index: index, sequence: sequence, into: $0) }
        let answer = exchange(request) { datagram in
            let answer = LinkStatsMessage.answer(datagram, index: index, sequence: sequence)
            return answer == .unrelated ? nil : answer
        }
        return answer ?? .none
    }

    /// RTM_GETLINK: every attribute of the link, the byte counters among them.
    func linkCounters(index: Int32) -> ByteCounts? {
        sequence &+= 1
        let sequence = sequence
        let answer = exchange(LinkCounterMessage.request(index: index, sequence: sequence)) { datagram in
            let answer = LinkCounterMessage.answer(datagram, index: index, sequence: sequence)
            return answer == .unrelated ? nil : answer
        }
        guard case .reading(let reading) = answer else { return nil }
        return reading.counters
    }

    /// Sends `message` and reads datagrams until `read` finds the answer (it returns nil for an unrelated one: a
    /// reply to an earlier request that was not read, after an interrupted read, may come first, and is skipped by
    /// number); nil when the send or the receive failed.
    private func exchange<Answer>(_ message: [UInt8], read: (UnsafeRawBufferPointer) -> Answer?) -> Answer? {
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == message.count else { return nil }
        for _ in 0..<8 {
            let received = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            if let answer = buffer.withUnsafeBytes({ read(UnsafeRawBufferPointer(rebasing: $0[..<received])) }) {
                return answer
            }
        }
        return nil
    }
}

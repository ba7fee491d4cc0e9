// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// Reads one interface's byte counters (IFLA_STATS64) with an RTM_GETLINK request on a socket of its own: what
/// usage per network is counted from. The kernel answers a link request inside the send, so a read costs a
/// round trip to the kernel and never waits on the network. Not /sys/class/net: that shows the network namespace
/// sysfs was mounted in, not the daemon's. The message is built and read by hand (`LinkCounterMessage`).
///
/// Use from one thread at a time (the main loop).
public final class LinkCounterReader {
    private let descriptor: Int32
    private var sequence: UInt32 = 0
    /// One link message with all its attributes: a few kilobytes; a longer one is cut and read as far as it goes.
    private var buffer = [UInt8](repeating: 0, count: 32 << 10)

    public init() throws(NetlinkError) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw .system(errno: errno) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The interface's name and counters now; nil when there is no such interface (it went away), or the kernel
    /// could not answer (then the next reading covers the interval).
    public func read(index: Int32) -> CounterReading? {
        sequence &+= 1
        let request = LinkCounterMessage.request(index: index, sequence: sequence)
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        let sent = request.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == request.count else { return nil }
        // A reply to an earlier request that was not read (an interrupted read) may come first: skipped by number.
        for _ in 0..<8 {
            let received = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            let answer = buffer.withUnsafeBufferPointer {
                LinkCounterMessage.answer(
                    UnsafeBufferPointer(rebasing: $0[..<received]), index: index, sequence: sequence)
            }
            switch answer {
            case .reading(let reading): return reading
            case .none: return nil
            case .unrelated: continue
            }
        }
        return nil
    }
}

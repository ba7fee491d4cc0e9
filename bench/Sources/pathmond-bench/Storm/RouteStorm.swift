// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Adds or deletes many /32 routes `dev veth0` as fast as the listeners keep up: requests go in chunks, several per
/// send(2) and without NLM_F_ACK (the kernel answers only errors), and before each chunk the writer waits while any
/// listener has more than `maximumQueuedBytes` unread, so that none loses notifications and all see the same storm.
final class RouteStorm {
    private let fd: Int32
    private let interfaceIndex: Int32
    private var sequence: UInt32 = 0
    private(set) var errors = 0
    private(set) var firstError: Int32?
    /// Routes per send(2).
    var chunk = 256
    /// Routes per second at most (0: as fast as the listeners keep up).
    var rate = 0
    var maximumQueuedBytes = 256 << 10

    init(in namespace: BenchNamespace) throws(BenchError) {
        fd = try namespace.entered { () throws(BenchError) in try RTNetlink.openSocket(groups: 0) }
        interfaceIndex = namespace.interfaceIndex
        var size: Int32 = 4 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        close(fd)
    }

    /// The i-th route of a block: `base` + i as an IPv4 address, in network order.
    static func address(_ base: UInt32, _ index: Int) -> [UInt8] {
        let value = base &+ UInt32(index)
        return [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    /// Adds (or deletes) `count` routes from `base` upward, pacing on `listeners`.
    func apply(add: Bool, base: UInt32, count: Int, listeners: NetlinkSockets?) throws(BenchError) {
        var message: [UInt8] = []
        message.reserveCapacity(chunk * 44)
        var index = 0
        var checked = 0
        let start = monotonicNanoseconds()
        while index < count {
            message.removeAll(keepingCapacity: true)
            let end = min(count, index + chunk)
            for route in index..<end { append(add: add, to: Self.address(base, route), into: &message) }
            // Reading /proc/net/netlink costs tens of microseconds: once per 256 routes at most.
            if let listeners, index - checked >= 256 || index == 0 {
                waitForListeners(listeners)
                checked = index
            }
            if rate > 0 {
                let due = start + UInt64(index) * 1_000_000_000 / UInt64(rate)
                let now = monotonicNanoseconds()
                if due > now + 50_000 { usleep(UInt32((due - now) / 1000)) }
            }
            let sent = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard sent == message.count else { throw .system("send(netlink routes)", errno) }
            collectErrors()
            index = end
        }
    }

    /// One route request: RTM_NEWROUTE (create, exclusive) or RTM_DELROUTE of `address`/32 dev veth0, main table.
    func append(add: Bool, to address: [UInt8], into message: inout [UInt8]) {
        sequence &+= 1
        let flags: UInt16 = RTNetlink.request | (add ? RTNetlink.create | RTNetlink.exclusive : 0)
        message.appendHost(UInt32(44))
        message.appendHost(add ? RTNetlink.newRoute : RTNetlink.deleteRoute)
        message.appendHost(flags)
        message.appendHost(sequence)
        message.appendHost(UInt32(0))
        // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type; then rtm_flags.
        message += [
            UInt8(AF_INET), 32, 0, 0, RTNetlink.mainTable, add ? RTNetlink.protocolBoot : 0,
            add ? RTNetlink.scopeLink : RTNetlink.scopeNowhere, RTNetlink.unicast,
        ]
        message.appendHost(UInt32(0))
        message.appendHost(UInt16(8))
        message.appendHost(UInt16(1))  // RTA_DST
        message += address
        message.appendHost(UInt16(8))
        message.appendHost(RTNetlink.attributeOutputInterface)
        message.appendHost(interfaceIndex)
    }

    /// Sends single requests with an acknowledgement each: for the paced per-event measurement.
    func sendOne(add: Bool, address: [UInt8]) throws(BenchError) {
        var message: [UInt8] = []
        append(add: add, to: address, into: &message)
        message[6] |= UInt8(RTNetlink.acknowledge)  // nlmsg_flags, low byte (little-endian host)
        let sent = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == message.count else { throw .system("send(netlink route)", errno) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= RTNetlink.headerSize + 4 else { throw .system("recv(netlink ack)", errno) }
            let (type, seq, code) = buffer.withUnsafeBytes {
                (
                    $0.loadUnaligned(fromByteOffset: 4, as: UInt16.self),
                    $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                    $0.loadUnaligned(fromByteOffset: RTNetlink.headerSize, as: Int32.self)
                )
            }
            guard type == RTNetlink.error, seq == sequence else { continue }
            guard code == 0 else { throw .kernel("a route \(add ? "addition" : "deletion")", -code) }
            return
        }
    }

    private func waitForListeners(_ listeners: NetlinkSockets) {
        while listeners.read().values.contains(where: { $0.queuedBytes > maximumQueuedBytes }) {
            usleep(200)
        }
    }

    /// Reads the kernel's error answers (only failures are answered without NLM_F_ACK).
    private func collectErrors() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return }
            var offset = 0
            while offset + RTNetlink.headerSize + 4 <= count {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
                let type = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self) }
                let code = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset + RTNetlink.headerSize, as: Int32.self)
                }
                if type == RTNetlink.error && code != 0 {
                    errors += 1
                    if firstError == nil { firstError = -code }
                }
                guard length >= RTNetlink.headerSize else { break }
                offset += (length + 3) & ~3
            }
        }
    }
}

extension [UInt8] {
    /// Appends a fixed-width integer in host byte order, as netlink wants.
    mutating func appendHost<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }
}

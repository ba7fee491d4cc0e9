// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// One rtnetlink request, encoded in advance so that the timed section is only the send.
struct KernelRequest {
    /// What it does, for error messages.
    var summary: String
    fileprivate var type: UInt16
    fileprivate var flags: UInt16
    fileprivate var body: [UInt8]

    /// RTM_NEWLINK that sets or clears IFF_UP and nothing else.
    static func setLink(index: Int32, up: Bool) -> KernelRequest {
        var body: [UInt8] = [UInt8(AF_UNSPEC), 0, 0, 0]  // ifi_family, pad, ifi_type
        body.append(host: index)
        body.append(host: up ? RTNetlink.interfaceUp : 0)  // ifi_flags
        body.append(host: RTNetlink.interfaceUp)  // ifi_change: only IFF_UP
        return KernelRequest(
            summary: "link \(index) \(up ? "up" : "down")", type: RTNetlink.newLink, flags: 0, body: body)
    }

    /// RTM_NEWROUTE / RTM_DELROUTE of `default dev <index>` (IPv4, main table, no source), at `metric` when given
    /// (RTA_PRIORITY; a delete without it takes the device's first default route, the lowest metric), through
    /// `gateway` when given (RTA_GATEWAY; the route's scope is then universe, as `ip route add default via` makes it).
    static func defaultRoute(add: Bool, index: Int32, metric: UInt32? = nil, gateway: [UInt8]? = nil) -> KernelRequest {
        // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type; then rtm_flags.
        // A delete matches on what it names; scope NOWHERE means "any scope", as `ip route del` sends it.
        var body: [UInt8] = [
            UInt8(AF_INET), 0, 0, 0, RTNetlink.mainTable, add ? RTNetlink.protocolBoot : 0,
            add ? (gateway == nil ? RTNetlink.scopeLink : RTNetlink.scopeUniverse) : RTNetlink.scopeNowhere,
            RTNetlink.unicast,
        ]
        body.append(host: UInt32(0))
        body.appendAttribute(RTNetlink.attributeOutputInterface, withUnsafeBytes(of: index) { Array($0) })
        if let metric { body.appendAttribute(RTNetlink.attributePriority, withUnsafeBytes(of: metric) { Array($0) }) }
        if let gateway { body.appendAttribute(RTNetlink.attributeGateway, gateway) }
        let via = gateway.map { " via " + $0.map(String.init).joined(separator: ".") } ?? ""
        return KernelRequest(
            summary: "\(add ? "add" : "delete") default\(via) dev \(index)\(metric.map { " metric \($0)" } ?? "")",
            type: add ? RTNetlink.newRoute : RTNetlink.deleteRoute,
            flags: add ? RTNetlink.create | RTNetlink.exclusive : 0, body: body)
    }

    /// RTM_NEWADDR / RTM_DELADDR of a global IPv4 address.
    static func address(add: Bool, index: Int32, ipv4: [UInt8], prefixLength: UInt8) -> KernelRequest {
        var body: [UInt8] = [UInt8(AF_INET), prefixLength, 0, RTNetlink.scopeUniverse]
        body.append(host: index)
        body.appendAttribute(RTNetlink.attributeLocal, ipv4)
        body.appendAttribute(RTNetlink.attributeAddress, ipv4)
        return KernelRequest(
            summary: "\(add ? "add" : "delete") \(ipv4.map(String.init).joined(separator: "."))/\(prefixLength)",
            type: add ? RTNetlink.newAddress : RTNetlink.deleteAddress,
            flags: add ? RTNetlink.create | RTNetlink.exclusive : 0, body: body)
    }

    /// RTM_NEWADDR with NLM_F_REPLACE of an IPv4 address already there, with new lifetimes: what a DHCP client's
    /// renewal sends (`ip address change ... valid_lft V preferred_lft P`), and what a router advertisement does to
    /// an IPv6 address. The address, its prefix and its scope stay as they were.
    static func renewal(index: Int32, ipv4: [UInt8], prefixLength: UInt8, valid: UInt32, preferred: UInt32)
        -> KernelRequest
    {
        var body: [UInt8] = [UInt8(AF_INET), prefixLength, 0, RTNetlink.scopeUniverse]
        body.append(host: index)
        body.appendAttribute(RTNetlink.attributeLocal, ipv4)
        body.appendAttribute(RTNetlink.attributeAddress, ipv4)
        var lifetimes: [UInt8] = []
        for word in [preferred, valid, 0, 0] { lifetimes.append(host: word) }
        body.appendAttribute(RTNetlink.attributeAddressLifetimes, lifetimes)
        return KernelRequest(
            summary: "renew \(ipv4.map(String.init).joined(separator: "."))/\(prefixLength) valid \(valid)",
            type: RTNetlink.newAddress, flags: RTNetlink.replace, body: body)
    }

    /// RTM_NEWNEIGH with NLM_F_CREATE | NLM_F_REPLACE of an IPv4 neighbour entry in `state` (`ip neigh replace`): a
    /// LAN's churn as the kernel's own neighbour machine makes it, REACHABLE after traffic, STALE after a while.
    static func neighbour(index: Int32, ipv4: [UInt8], linkLayer: [UInt8], state: UInt16) -> KernelRequest {
        // ndmsg: family, three bytes of padding, ifindex, state, flags, type.
        var body: [UInt8] = [UInt8(AF_INET), 0, 0, 0]
        body.append(host: index)
        body.append(host: state)
        body += [0, 0]
        body.appendAttribute(RTNetlink.attributeNeighbourAddress, ipv4)
        body.appendAttribute(RTNetlink.attributeLinkLayerAddress, linkLayer)
        return KernelRequest(
            summary: "neighbour \(ipv4.map(String.init).joined(separator: ".")) state \(state)",
            type: RTNetlink.newNeighbour, flags: RTNetlink.create | RTNetlink.replace, body: body)
    }
}

/// Sends requests on its own NETLINK_ROUTE socket (bound to no group) and reads each acknowledgement.
/// The bench makes its own changes rather than running `ip`: spawning a process costs about a millisecond,
/// more than the latencies measured.
final class RequestWriter {
    private let fd: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 8192)

    init() throws(BenchError) {
        fd = try RTNetlink.openSocket(groups: 0)
    }

    deinit {
        close(fd)
    }

    /// Encodes the whole message now, so `send` is a single syscall.
    func prepare(_ request: KernelRequest) -> [UInt8] {
        sequence &+= 1
        var message: [UInt8] = []
        message.reserveCapacity(RTNetlink.headerSize + request.body.count)
        message.append(host: UInt32(RTNetlink.headerSize + request.body.count))
        message.append(host: request.type)
        message.append(host: RTNetlink.request | RTNetlink.acknowledge | request.flags)
        message.append(host: sequence)
        message.append(host: UInt32(0))  // nlmsg_pid: to the kernel
        message.append(contentsOf: request.body)
        return message
    }

    /// Sends a prepared message; the caller takes t0 just before this call.
    func send(_ message: [UInt8]) throws(BenchError) {
        let sent = message.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == message.count else { throw .system("send(netlink)", errno) }
    }

    /// Reads the kernel's NLMSG_ERROR answer to the last message; error 0 is the acknowledgement.
    func awaitAcknowledgement(for request: KernelRequest) throws(BenchError) {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else {
                if errno == EINTR { continue }
                throw .system("recv(netlink ack)", errno)
            }
            let answer = buffer.withUnsafeBytes { bytes -> (type: UInt16, sequence: UInt32, code: Int32)? in
                guard count >= RTNetlink.headerSize + 4 else { return nil }
                return (
                    bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self),
                    bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                    bytes.loadUnaligned(fromByteOffset: RTNetlink.headerSize, as: Int32.self)
                )
            }
            guard let answer, answer.type == RTNetlink.error, answer.sequence == sequence else { continue }
            guard answer.code == 0 else { throw .kernel(request.summary, -answer.code) }
            return
        }
    }

    /// Prepare, send and await the acknowledgement: for the untimed restores.
    func perform(_ request: KernelRequest) throws(BenchError) {
        try send(prepare(request))
        try awaitAcknowledgement(for: request)
    }
}

extension [UInt8] {
    /// Appends a fixed-width integer in host byte order, as netlink wants.
    fileprivate mutating func append<Value: FixedWidthInteger>(host value: Value) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    /// Appends one rtattr (length, type, payload) padded to 4 bytes.
    fileprivate mutating func appendAttribute(_ type: UInt16, _ payload: [UInt8]) {
        append(host: UInt16(4 + payload.count))
        append(host: type)
        append(contentsOf: payload)
        append(contentsOf: [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4))
    }
}

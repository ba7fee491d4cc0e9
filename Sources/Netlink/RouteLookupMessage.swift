// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The bytes of an RTM_GETROUTE request for one `RouteQuery` (what `ip route get` sends) and the reading of the
/// kernel's answer, on plain byte arrays so that both are tested without a kernel. Host byte order, as netlink is.
enum RouteLookupMessage {
    static let getRoute: UInt16 = 26  // RTM_GETROUTE
    static let newRoute: UInt16 = 24  // RTM_NEWROUTE
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let request: UInt16 = 1  // NLM_F_REQUEST
    /// The longest request `appendRequest` writes: IPv6 with a source, a mark, a user and an interface.
    static let largestRequest = 16 + 12 + (4 + 16) * 2 + 8 * 3

    /// One request: nlmsghdr, rtmsg, RTA_DST, RTA_SRC if the query has a source, RTA_MARK if it has a mark, RTA_UID
    /// if it names a user, RTA_OIF if it names an output interface.
    static func request(for query: RouteQuery, sequence: UInt32) -> [UInt8] {
        var message: [UInt8] = []
        appendRequest(for: query, sequence: sequence, to: &message)
        return message
    }

    /// Appends one request to `message`.
    static func appendRequest(for query: RouteQuery, sequence: UInt32, to message: inout [UInt8]) {
        let start = message.count
        message.append(contentsOf: repeatElement(0, count: largestRequest))
        let length = message.withUnsafeMutableBytes {
            writeRequest(for: query, sequence: sequence, into: $0, at: start)
        }
        message.removeLast(largestRequest - length)
    }

    /// Writes one request at `start`, every byte of it, and returns its length (at most `largestRequest`): thousands
    /// of flows' look-ups go out in a few datagrams, each written in place into one buffer (appending field by
    /// field cost two thousand instructions a request, growing the array per request a few hundred more).
    static func writeRequest(
        for query: RouteQuery, sequence: UInt32, into bytes: UnsafeMutableRawBufferPointer, at start: Int
    ) -> Int {
        let outputIndex = query.outputInterfaceIndex
        let family: UInt8 = query.destination.family == .ipv4 ? 2 : 10
        let size = query.destination.byteCount
        let bits = UInt8(size * 8)
        let source = query.source.flatMap { $0.family == query.destination.family ? $0 : nil }
        let options =
            (source == nil ? 0 : 4 + size) + (query.mark == nil ? 0 : 8) + (query.uid == nil ? 0 : 8)
            + (outputIndex == nil ? 0 : 8)
        let length = 16 + 12 + 4 + size + options
        precondition(start + length <= bytes.count, "room for a route request")
        var offset = start
        func put<Value: FixedWidthInteger>(_ value: Value) {
            bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Value.self)
            offset += MemoryLayout<Value>.size
        }
        func put(_ address: IPAddress) {
            address.storeBytes(into: bytes, toByteOffset: offset)
            offset += address.byteCount
        }
        put(UInt32(length))
        put(getRoute)
        put(request)
        put(sequence)
        put(UInt32(0))  // port id: the kernel's
        // rtmsg: family, destination and source prefix lengths, then tos, table, protocol, scope, type (zero).
        put(family)
        put(bits)
        put(query.source == nil ? 0 : bits)
        put(UInt32(0))
        put(UInt8(0))
        // rtm_flags: RTM_F_LOOKUP_TABLE, so the answer names the table its route came from (as `ip route get`
        // asks), and none when there was no route (see `reply`); without it IPv4 always says main.
        put(UInt32(0x1000))
        // Addresses are 4 or 16 bytes: no padding needed.
        put(UInt16(4 + size))
        put(UInt16(1))  // RTA_DST
        put(query.destination)
        if let source {
            put(UInt16(4 + size))
            put(UInt16(2))  // RTA_SRC
            put(source)
        }
        if let mark = query.mark {
            put(UInt16(8))
            put(UInt16(16))  // RTA_MARK
            put(mark)
        }
        if let uid = query.uid {
            put(UInt16(8))
            put(UInt16(25))  // RTA_UID
            put(uid)
        }
        if let outputIndex {
            put(UInt16(8))
            put(UInt16(4))  // RTA_OIF
            put(UInt32(bitPattern: outputIndex))
        }
        return length
    }

    static func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// What one reply says, for the request with `sequence`.
    enum Reply: Equatable {
        /// The kernel's decision.
        case decision(RouteDecision)
        /// Another request's reply, or a message that is not a reply: keep reading.
        case unrelated
        /// The kernel failed for a reason that says nothing about routing (out of memory, a bad request): no
        /// answer this time.
        case failed(errno: Int32)
    }

    /// Reads the first message of a datagram, in place (no copy of the message or its attributes): an array, or a
    /// batch's receive slot as it is.
    static func reply<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, sequence: UInt32) -> Reply
    where Bytes.Index == Int {
        guard bytes.count >= 16, let length = u32(bytes, 0), Int(length) <= bytes.count, length >= 16,
            let type = u16(bytes, 4), u32(bytes, 8) == sequence
        else { return .unrelated }
        let end = Int(length)
        switch type {
        case error:
            guard end >= 20, let code = u32(bytes, 16) else { return .unrelated }
            let errno = -Int32(bitPattern: code)
            // ENETUNREACH, EHOSTUNREACH (unreachable), EACCES (prohibit), EINVAL (an IPv4 blackhole), EPERM:
            // the next packet would go nowhere.
            switch errno {
            case 101, 113, 13, 22, 1: return .decision(.unroutable)
            default: return .failed(errno: errno)
            }
        case newRoute:
            guard end >= 16 + 12 else { return .unrelated }
            let routeType = bytes[bytes.startIndex + 16 + 7]
            // RTN_UNICAST and RTN_LOCAL carry; blackhole, unreachable, prohibit and the rest do not.
            guard routeType == 1 || routeType == 2 else { return .decision(.unroutable) }
            var interface: Int32?
            var gateway: IPAddress?
            var table = UInt32(bytes[bytes.startIndex + 16 + 4])  // rtm_table; RTA_TABLE has the whole id
            var position = 16 + 12
            // The attributes, stopping at the first malformed one (as `attributes(_:from:)` does).
            while position + 4 <= end, let size16 = u16(bytes, position), let kind = u16(bytes, position + 2) {
                let size = Int(size16)
                guard size >= 4, position + size <= end else { break }
                let value = (bytes.startIndex + position + 4)..<(bytes.startIndex + position + size)
                switch kind & 0x3fff {
                case 4 where value.count >= 4:  // RTA_OIF
                    interface = u32(bytes, position + 4).map { Int32(bitPattern: $0) }
                case 4: interface = nil
                case 5: gateway = IPAddress(bytes: bytes[value])  // RTA_GATEWAY
                case 18 where value.count > 2:  // RTA_VIA: a family, then the address
                    gateway = IPAddress(bytes: bytes[(value.lowerBound + 2)..<value.upperBound])
                case 15 where value.count >= 4: table = u32(bytes, position + 4) ?? table  // RTA_TABLE
                default: break
                }
                position += (size + 3) & ~3
            }
            guard let interface, interface > 0 else { return .decision(.unroutable) }
            // No table: no route matched, and the kernel assumed the destination on link because the request
            // named an output interface (IPv4 does; a bound socket would send to it by ARP, which an off-link peer
            // never answers). A real route, connected ones included, always comes from a table.
            guard table != 0 else { return .decision(.unroutable) }
            return .decision(.via(interfaceIndex: interface, gateway: gateway))
        default:
            return .unrelated
        }
    }

    /// A request to dump the IPv6 routes (RTM_GETROUTE with NLM_F_DUMP): what `ip -6 route show table all` sends.
    static func ipv6RouteDump(sequence: UInt32) -> [UInt8] {
        var message: [UInt8] = []
        appendLittleEndian(UInt32(16 + 12), to: &message)
        appendLittleEndian(getRoute, to: &message)
        appendLittleEndian(request | 0x300, to: &message)  // NLM_F_REQUEST | NLM_F_DUMP
        appendLittleEndian(sequence, to: &message)
        appendLittleEndian(UInt32(0), to: &message)
        message += [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  // rtmsg: AF_INET6, the rest zero
        return message
    }

    /// The expiries in one datagram of a route dump's reply to `sequence`, and whether it ended the dump
    /// (NLMSG_DONE, or an error). Routes without an expiry, or already past it, are skipped.
    static func expiries(inDumpReply bytes: [UInt8], sequence: UInt32) -> (expiries: [RouteExpiry], done: Bool) {
        var found: [RouteExpiry] = []
        var position = 0
        while position + 16 <= bytes.count, let length = u32(bytes, position), let type = u16(bytes, position + 4) {
            let end = position + Int(length)
            guard length >= 16, end <= bytes.count else { return (found, true) }
            if u32(bytes, position + 8) == sequence {
                if type == 3 || type == error { return (found, true) }  // NLMSG_DONE, NLMSG_ERROR
                if type == newRoute, end >= position + 28, bytes[position + 16] == 10,
                    let expiry = expiry(bytes, route: position, end: end)
                {
                    found.append(expiry)
                }
            }
            position += (Int(length) + 3) & ~3
        }
        return (found, false)
    }

    /// The expiry of the IPv6 route message at `start`, if it carries one still ahead.
    private static func expiry(_ bytes: [UInt8], route start: Int, end: Int) -> RouteExpiry? {
        let prefixLength = Int(bytes[start + 17])
        var prefix = [UInt8](repeating: 0, count: 16)
        var expires: Int32 = 0
        var position = start + 28
        while position + 4 <= end, let size16 = u16(bytes, position), let kind = u16(bytes, position + 2) {
            let size = Int(size16)
            guard size >= 4, position + size <= end else { break }
            switch kind & 0x3fff {
            case 1 where size == 20: prefix = Array(bytes[(position + 4)..<(position + 20)])  // RTA_DST
            case 12 where size >= 4 + 32:  // RTA_CACHEINFO: rta_expires is its third field
                expires = u32(bytes, position + 4 + 8).map { Int32(bitPattern: $0) } ?? 0
            default: break
            }
            position += (size + 3) & ~3
        }
        guard expires > 0, let address = IPAddress(bytes: prefix) else { return nil }
        return RouteExpiry(address: address, length: prefixLength, centiseconds: expires)
    }

    /// The attributes (type without flag bits, value) from `offset`, stopping at the first malformed one.
    static func attributes(_ bytes: [UInt8], from offset: Int) -> [(UInt16, [UInt8])] {
        var result: [(UInt16, [UInt8])] = []
        var position = offset
        while position + 4 <= bytes.count, let length = u16(bytes, position), let kind = u16(bytes, position + 2) {
            let size = Int(length)
            guard size >= 4, position + size <= bytes.count else { break }
            result.append((kind & 0x3fff, Array(bytes[(position + 4)..<(position + size)])))
            position += (size + 3) & ~3
        }
        return result
    }

    static func attribute(_ kind: UInt16, _ value: [UInt8]) -> [UInt8] {
        let padded = value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        return littleEndianBytes(UInt16(4 + value.count)) + littleEndianBytes(kind) + padded
    }

    static func littleEndianBytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        (0..<(Value.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value.littleEndian >> ($0 * 8)) }
    }

    /// The little-endian field `offset` bytes into `bytes` (counted from its start), nil past the end.
    @inline(__always)
    static func u16<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> UInt16?
    where Bytes.Index == Int {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let start = bytes.startIndex + offset
        return UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8
    }

    /// Inlined, its bytes read one by one: every reply reads a dozen of these, and a thousand flows' two replies
    /// each on every change (a reduce over the four, called, cost 170 instructions a flow).
    @inline(__always)
    static func u32<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> UInt32?
    where Bytes.Index == Int {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let start = bytes.startIndex + offset
        return UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
            | UInt32(bytes[start + 3]) << 24
    }
}

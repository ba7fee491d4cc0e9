import PathModel

/// The bytes of an RTM_GETROUTE request for one `RouteQuery` (what `ip route get` sends) and the reading of the
/// kernel's answer, on plain byte arrays so that both are tested without a kernel. Host byte order, as netlink is.
enum RouteLookupMessage {
    static let getRoute: UInt16 = 26  // RTM_GETROUTE
    static let newRoute: UInt16 = 24  // RTM_NEWROUTE
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let request: UInt16 = 1  // NLM_F_REQUEST

    /// One request: nlmsghdr, rtmsg, RTA_DST, RTA_SRC if the query has a source, RTA_MARK if it has a mark.
    static func request(for query: RouteQuery, sequence: UInt32) -> [UInt8] {
        let family: UInt8 = query.destination.family == .ipv4 ? 2 : 10
        let bits = UInt8(query.destination.bytes.count * 8)
        var body: [UInt8] = [family, bits, query.source == nil ? 0 : bits, 0, 0, 0, 0, 0]
        body += [0, 0, 0, 0]  // rtm_flags
        body += attribute(1, query.destination.bytes)  // RTA_DST
        if let source = query.source, source.family == query.destination.family {
            body += attribute(2, source.bytes)  // RTA_SRC
        }
        if let mark = query.mark { body += attribute(16, littleEndianBytes(mark)) }  // RTA_MARK
        var message = littleEndianBytes(UInt32(16 + body.count))
        message += littleEndianBytes(getRoute) + littleEndianBytes(request)
        message += littleEndianBytes(sequence) + littleEndianBytes(UInt32(0))
        return message + body
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

    /// Reads the first message of a datagram.
    static func reply(_ bytes: [UInt8], sequence: UInt32) -> Reply {
        guard bytes.count >= 16, let length = u32(bytes, 0), Int(length) <= bytes.count, length >= 16,
            let type = u16(bytes, 4), u32(bytes, 8) == sequence
        else { return .unrelated }
        let message = Array(bytes[16..<Int(length)])
        switch type {
        case error:
            guard let code = u32(message, 0) else { return .unrelated }
            let errno = -Int32(bitPattern: code)
            // ENETUNREACH, EHOSTUNREACH (unreachable), EACCES (prohibit), EINVAL (an IPv4 blackhole), EPERM:
            // the next packet would go nowhere.
            return [101, 113, 13, 22, 1].contains(errno) ? .decision(.unroutable) : .failed(errno: errno)
        case newRoute:
            guard message.count >= 12 else { return .unrelated }
            let routeType = message[7]
            // RTN_UNICAST and RTN_LOCAL carry; blackhole, unreachable, prohibit and the rest do not.
            guard routeType == 1 || routeType == 2 else { return .decision(.unroutable) }
            var interface: Int32?
            var gateway: IPAddress?
            for (kind, value) in attributes(message, from: 12) {
                switch kind {
                case 4: interface = u32(value, 0).map { Int32(bitPattern: $0) }  // RTA_OIF
                case 5: gateway = IPAddress(bytes: value)  // RTA_GATEWAY
                case 18 where value.count > 2: gateway = IPAddress(bytes: Array(value[2...]))  // RTA_VIA
                default: break
                }
            }
            guard let interface, interface > 0 else { return .decision(.unroutable) }
            return .decision(.via(interfaceIndex: interface, gateway: gateway))
        default:
            return .unrelated
        }
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

    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << ($1 * 8) }
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Reads the replies to WireGuard's WG_CMD_GET_DEVICE (generic netlink family "wireguard", linux/wireguard.h) from
/// plain bytes: the device's fwmark and each peer's endpoint, which is where the tunnel's own packets go. Tested on
/// constructed messages, since this machine has no wireguard module. Host byte order, as netlink is; the
/// endpoint's sockaddr keeps its address in network order, as sockaddr does.
enum WireGuardMessage {
    /// WG_CMD_GET_DEVICE.
    static let getDevice: UInt8 = 0
    /// WG_GENL_VERSION.
    static let version: UInt8 = 1
    /// nlmsghdr + genlmsghdr.
    static let headerSize = 16 + 4

    /// WGDEVICE_A_* numbers.
    enum DeviceAttribute {
        static let interfaceIndex: UInt16 = 1
        static let interfaceName: UInt16 = 2
        static let fwmark: UInt16 = 7
        static let peers: UInt16 = 8
    }

    /// WGPEER_A_ENDPOINT: a struct sockaddr_in or sockaddr_in6.
    static let peerEndpoint: UInt16 = 4

    /// What one reply message says. A device with many peers comes as several messages of one dump; the first
    /// carries the device's attributes, the rest only its name and more peers.
    struct Device: Equatable {
        var interfaceIndex: Int32?
        var fwmark: UInt32?
        var endpoints: [IPAddress] = []
    }

    /// One message (nlmsghdr, genlmsghdr, attributes); nil for a message that is not a well-formed reply (too
    /// short, a control message, a length past the bytes). Peers without an endpoint (not yet known) add nothing.
    static func device(in bytes: [UInt8]) -> Device? {
        guard bytes.count >= headerSize, let length = RouteLookupMessage.u32(bytes, 0), Int(length) >= headerSize,
            Int(length) <= bytes.count, let type = RouteLookupMessage.u16(bytes, 4), type >= 0x10  // NLMSG_MIN_TYPE
        else { return nil }
        let body = Array(bytes[..<Int(length)])
        var device = Device()
        for (kind, value) in RouteLookupMessage.attributes(body, from: headerSize) {
            switch kind {
            case DeviceAttribute.interfaceIndex:
                device.interfaceIndex = RouteLookupMessage.u32(value, 0).map { Int32(bitPattern: $0) }
            case DeviceAttribute.fwmark:
                device.fwmark = RouteLookupMessage.u32(value, 0)
            case DeviceAttribute.peers:
                for (_, peer) in RouteLookupMessage.attributes(value, from: 0) {
                    let endpoint = RouteLookupMessage.attributes(peer, from: 0).first { $0.0 == peerEndpoint }?.1
                    if let address = endpoint.flatMap(address(inSocketAddress:)) { device.endpoints.append(address) }
                }
            default:
                break
            }
        }
        return device
    }

    /// The device as a whole dump's messages describe it: the endpoints of every message, the first index and mark.
    static func device(in messages: [[UInt8]]) -> Device? {
        var merged: Device?
        for message in messages {
            guard let part = device(in: message) else { continue }
            var whole = merged ?? Device()
            whole.interfaceIndex = whole.interfaceIndex ?? part.interfaceIndex
            whole.fwmark = whole.fwmark ?? part.fwmark
            whole.endpoints += part.endpoints
            merged = whole
        }
        return merged
    }

    /// The address of a struct sockaddr_in (family 2, port, 4 bytes) or sockaddr_in6 (family 10, port, flow
    /// info, 16 bytes, scope); nil for another family, a wildcard address or too few bytes.
    static func address(inSocketAddress bytes: [UInt8]) -> IPAddress? {
        guard let family = RouteLookupMessage.u16(bytes, 0) else { return nil }
        let range: Range<Int>
        switch family {
        case 2: range = 4..<8
        case 10: range = 8..<24
        default: return nil
        }
        guard bytes.count >= range.upperBound else { return nil }
        let address = Array(bytes[range])
        guard address.contains(where: { $0 != 0 }) else { return nil }
        return IPAddress(bytes: address)
    }
}

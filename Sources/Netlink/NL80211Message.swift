// SPDX-License-Identifier: Apache-2.0
internal import CNetlink

/// Why bytes are not a well-formed nl80211 message.
public enum NL80211DecodingError: Error, Sendable, Hashable {
    /// Fewer bytes than the headers (nlmsghdr + genlmsghdr) or than nlmsg_len announces.
    case truncated(needed: Int, available: Int)
    /// An nlmsg_len smaller than the headers it must cover.
    case badMessageLength(Int)
    /// A netlink control message (NLMSG_ERROR, NLMSG_DONE, …), not a generic netlink one.
    case controlMessage(type: UInt16)
    /// An attribute whose length is below its own header or runs past the message.
    case badAttribute(type: UInt16, offset: Int)
    /// A fixed-size attribute (NL80211_ATTR_IFINDEX, NL80211_ATTR_IFTYPE) of the wrong size.
    case badAttributeSize(type: UInt16, size: Int)
    /// An SSID longer than 802.11 allows (IEEE80211_MAX_SSID_LEN, 32 bytes).
    case ssidTooLong(Int)
}

/// One nl80211 message, decoded from its raw bytes: nlmsghdr, genlmsghdr, then attributes. Pure: no libnl, no
/// I/O, so captured bytes test exactly what the watcher runs. Integers are in host byte order, as netlink sends them.
public struct NL80211Message: Sendable, Hashable {
    /// The genlmsghdr's command (NL80211_CMD_*).
    public private(set) var command: UInt8
    /// NL80211_ATTR_IFINDEX; absent for a wireless device without a netdev (a P2P device).
    public private(set) var interfaceIndex: Int32?
    /// NL80211_ATTR_IFTYPE.
    public private(set) var interfaceType: UInt32?
    /// NL80211_ATTR_SSID.
    public private(set) var ssid: [UInt8]?

    /// The association a whole netlink message (nlmsghdr + genlmsghdr + attributes) states, if any; see
    /// `association(in:)`. Throws for truncated or malformed bytes, never traps. Public so that a file-based source
    /// can replay captured bytes.
    public static func decode(_ bytes: [UInt8]) throws(NL80211DecodingError) -> WiFiAssociation? {
        association(in: try parse(bytes))
    }

    static let headerSize = 16 + 4  // struct nlmsghdr + struct genlmsghdr
    static let maximumSSIDLength = 32

    static let newInterface = UInt8(NL80211_CMD_NEW_INTERFACE.rawValue)
    static let deleteInterface = UInt8(NL80211_CMD_DEL_INTERFACE.rawValue)
    static let setInterface = UInt8(NL80211_CMD_SET_INTERFACE.rawValue)
    static let connect = UInt8(NL80211_CMD_CONNECT.rawValue)
    static let roam = UInt8(NL80211_CMD_ROAM.rawValue)
    static let disconnect = UInt8(NL80211_CMD_DISCONNECT.rawValue)

    /// Commands after which the interface's association may differ: the watcher asks the kernel again.
    static let changeCommands: Set<UInt8> = [newInterface, deleteInterface, setInterface, connect, roam, disconnect]

    /// Walks the message. Attributes other than the three above are skipped; a later duplicate wins, as in the
    /// kernel's nla_parse. Bytes past nlmsg_len (the next message of a datagram) are not looked at.
    static func parse(_ bytes: [UInt8]) throws(NL80211DecodingError) -> NL80211Message {
        guard bytes.count >= headerSize else { throw .truncated(needed: headerSize, available: bytes.count) }
        let length = Int(bytes.load(UInt32.self, at: 0))
        guard length >= headerSize else { throw .badMessageLength(length) }
        guard length <= bytes.count else { throw .truncated(needed: length, available: bytes.count) }
        let type = bytes.load(UInt16.self, at: 4)
        guard type >= UInt16(NLMSG_MIN_TYPE) else { throw .controlMessage(type: type) }
        var message = NL80211Message(command: bytes[16])
        var offset = headerSize
        while offset < length {
            guard length - offset >= 4 else { throw .badAttribute(type: 0, offset: offset) }
            let attributeLength = Int(bytes.load(UInt16.self, at: offset))
            // NLA_F_NESTED and NLA_F_NET_BYTEORDER ride in the top bits of the type.
            let attributeType = bytes.load(UInt16.self, at: offset + 2) & ~UInt16(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
            guard attributeLength >= 4, attributeLength <= length - offset else {
                throw .badAttribute(type: attributeType, offset: offset)
            }
            let value = Array(bytes[(offset + 4)..<(offset + attributeLength)])
            try message.take(type: attributeType, value: value)
            // NLA_ALIGNTO is 4; the padding after the last attribute may be cut off by nlmsg_len.
            offset += (attributeLength + 3) & ~3
        }
        return message
    }

    /// The association a message states, or nil for one that states none: an interface without a netdev, a
    /// CONNECT or ROAM (which carry the BSSID, not the SSID: ask with GET_INTERFACE), any other command.
    ///
    /// NEW_INTERFACE (a GET_INTERFACE reply or notification) gives the SSID of a station, P2P client or ad-hoc
    /// member, and nil for other types: an access point's SSID is the network it offers, not one it is attached to.
    static func association(in message: NL80211Message) -> WiFiAssociation? {
        guard let index = message.interfaceIndex, index > 0 else { return nil }
        switch message.command {
        case newInterface, setInterface:
            let isClient = message.interfaceType.map(isClientType) ?? false
            return WiFiAssociation(interfaceIndex: index, ssid: isClient ? message.ssid : nil)
        case deleteInterface, disconnect:
            return WiFiAssociation(interfaceIndex: index, ssid: nil)
        default:
            return nil
        }
    }

    private static func isClientType(_ type: UInt32) -> Bool {
        type == NL80211_IFTYPE_STATION.rawValue || type == NL80211_IFTYPE_P2P_CLIENT.rawValue
            || type == NL80211_IFTYPE_ADHOC.rawValue
    }

    private mutating func take(type: UInt16, value: [UInt8]) throws(NL80211DecodingError) {
        switch UInt32(type) {
        case NL80211_ATTR_IFINDEX.rawValue:
            guard value.count == 4 else { throw .badAttributeSize(type: type, size: value.count) }
            interfaceIndex = value.load(Int32.self, at: 0)
        case NL80211_ATTR_IFTYPE.rawValue:
            guard value.count == 4 else { throw .badAttributeSize(type: type, size: value.count) }
            interfaceType = value.load(UInt32.self, at: 0)
        case NL80211_ATTR_SSID.rawValue:
            guard value.count <= Self.maximumSSIDLength else { throw .ssidTooLong(value.count) }
            ssid = value
        default:
            break
        }
    }
}

extension Array where Element == UInt8 {
    /// An integer in host byte order at `offset`; the caller has checked the bounds.
    fileprivate func load<Value: FixedWidthInteger>(_: Value.Type, at offset: Int) -> Value {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
    }
}

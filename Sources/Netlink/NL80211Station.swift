// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// The current association's link figures of one wireless interface: nl80211's station information about the
/// access point (NL80211_CMD_GET_STATION), the figures `iw dev wlan0 station dump` prints.
public struct WiFiStation: Sendable, Hashable {
    /// The interface (netdev) index.
    public var interfaceIndex: Int32
    /// NL80211_STA_INFO_SIGNAL_AVG: the average signal of the station's frames, in dBm.
    public var signalAverageDBm: Int32?
    /// NL80211_STA_INFO_SIGNAL: the last frame's signal, in dBm (used when the driver keeps no average).
    public var signalDBm: Int32?
    /// NL80211_STA_INFO_EXPECTED_THROUGHPUT: the driver's estimate, in kbit/s.
    public var expectedThroughputKbps: UInt32?
    /// NL80211_STA_INFO_TX_BITRATE's NL80211_RATE_INFO_BITRATE32 (or the 16-bit BITRATE), converted to kbit/s.
    public var transmitBitrateKbps: UInt32?

    public init(
        interfaceIndex: Int32, signalAverageDBm: Int32? = nil, signalDBm: Int32? = nil,
        expectedThroughputKbps: UInt32? = nil, transmitBitrateKbps: UInt32? = nil
    ) {
        self.interfaceIndex = interfaceIndex
        self.signalAverageDBm = signalAverageDBm
        self.signalDBm = signalDBm
        self.expectedThroughputKbps = expectedThroughputKbps
        self.transmitBitrateKbps = transmitBitrateKbps
    }
}

/// What an nl80211 event on the "mlme" group says about link quality.
public enum NL80211QualityEvent: Sendable, Hashable {
    /// The interface's figures may have changed: ask GET_STATION again. CONNECT, ROAM, and the connection quality
    /// monitor's NOTIFY_CQM (an RSSI threshold crossed, beacons or packets lost).
    case changed(interfaceIndex: Int32, reason: Reason)
    /// DISCONNECT: no association, no figures.
    case disconnected(interfaceIndex: Int32)

    public enum Reason: Sendable, Hashable {
        case connected
        case roamed
        /// NL80211_ATTR_CQM_RSSI_THRESHOLD_EVENT: the signal went below (low) or above (high) the threshold
        /// wpa_supplicant or iwd set; with NL80211_ATTR_CQM_RSSI_LEVEL when the driver reports it.
        case signalThreshold(high: Bool, levelDBm: Int32?)
        /// NL80211_ATTR_CQM_BEACON_LOSS_EVENT, or the threshold event's BEACON_LOSS value.
        case beaconLoss
        /// NL80211_ATTR_CQM_PKT_LOSS_EVENT: this many packets were not acknowledged.
        case packetLoss(count: UInt32)
        /// A NOTIFY_CQM this decoder does not know (a TXE event, say): ask anyway.
        case other
    }
}

/// Pure decoding of the station and quality messages; no libnl, no I/O.
public enum NL80211Station {
    static let getStation = UInt8(NL80211_CMD_GET_STATION.rawValue)
    static let newStation = UInt8(NL80211_CMD_NEW_STATION.rawValue)
    static let notifyCQM = UInt8(NL80211_CMD_NOTIFY_CQM.rawValue)

    /// The station a NEW_STATION message (a GET_STATION reply) describes; nil for another command, or one without
    /// an interface index or station information. Throws for malformed bytes, never traps.
    public static func station(in bytes: [UInt8]) throws(NL80211DecodingError) -> WiFiStation? {
        let (command, attributes) = try NL80211Attributes.message(bytes)
        guard command == newStation, let index = try attributes.int32(UInt16(NL80211_ATTR_IFINDEX.rawValue)),
            let info = attributes.first(UInt16(NL80211_ATTR_STA_INFO.rawValue))
        else { return nil }
        let figures = try NL80211Attributes.walk(info)
        var station = WiFiStation(interfaceIndex: index)
        station.signalAverageDBm = try figures.signedByte(UInt16(NL80211_STA_INFO_SIGNAL_AVG.rawValue))
        station.signalDBm = try figures.signedByte(UInt16(NL80211_STA_INFO_SIGNAL.rawValue))
        station.expectedThroughputKbps = try figures.uint32(UInt16(NL80211_STA_INFO_EXPECTED_THROUGHPUT.rawValue))
        if let rate = figures.first(UInt16(NL80211_STA_INFO_TX_BITRATE.rawValue)) {
            let rateInfo = try NL80211Attributes.walk(rate)
            // Both count units of 100 kbit/s; BITRATE32 is there for rates past 6.5 Gbit/s.
            var units = try rateInfo.uint32(UInt16(NL80211_RATE_INFO_BITRATE32.rawValue))
            if units == nil { units = try rateInfo.uint16(UInt16(NL80211_RATE_INFO_BITRATE.rawValue)).map(UInt32.init) }
            station.transmitBitrateKbps = units.map { $0.multipliedReportingOverflow(by: 100).partialValue }
        }
        return station
    }

    /// What an event says about link quality; nil for commands that say nothing of it.
    public static func event(in bytes: [UInt8]) throws(NL80211DecodingError) -> NL80211QualityEvent? {
        let (command, attributes) = try NL80211Attributes.message(bytes)
        guard let index = try attributes.int32(UInt16(NL80211_ATTR_IFINDEX.rawValue)), index > 0 else { return nil }
        switch command {
        case NL80211Message.connect: return .changed(interfaceIndex: index, reason: .connected)
        case NL80211Message.roam: return .changed(interfaceIndex: index, reason: .roamed)
        case NL80211Message.disconnect: return .disconnected(interfaceIndex: index)
        case notifyCQM:
            guard let cqm = attributes.first(UInt16(NL80211_ATTR_CQM.rawValue)) else {
                return .changed(interfaceIndex: index, reason: .other)
            }
            return .changed(interfaceIndex: index, reason: try reason(NL80211Attributes.walk(cqm)))
        default: return nil
        }
    }

    private static func reason(_ cqm: NL80211Attributes) throws(NL80211DecodingError) -> NL80211QualityEvent.Reason {
        if let threshold = try cqm.uint32(UInt16(NL80211_ATTR_CQM_RSSI_THRESHOLD_EVENT.rawValue)) {
            switch threshold {
            case NL80211_CQM_RSSI_THRESHOLD_EVENT_LOW.rawValue, NL80211_CQM_RSSI_THRESHOLD_EVENT_HIGH.rawValue:
                let level = try cqm.int32(UInt16(NL80211_ATTR_CQM_RSSI_LEVEL.rawValue))
                return .signalThreshold(
                    high: threshold == NL80211_CQM_RSSI_THRESHOLD_EVENT_HIGH.rawValue, levelDBm: level)
            case NL80211_CQM_RSSI_BEACON_LOSS_EVENT.rawValue: return .beaconLoss
            default: return .other
            }
        }
        if cqm.first(UInt16(NL80211_ATTR_CQM_BEACON_LOSS_EVENT.rawValue)) != nil { return .beaconLoss }
        if let lost = try cqm.uint32(UInt16(NL80211_ATTR_CQM_PKT_LOSS_EVENT.rawValue)) {
            return .packetLoss(count: lost)
        }
        return .other
    }
}

/// The attributes of one level of a netlink message, in order (a later duplicate wins in the look-ups, as in the
/// kernel's nla_parse).
struct NL80211Attributes {
    var entries: [(type: UInt16, value: ArraySlice<UInt8>)]

    /// The genlmsghdr's command and the top-level attributes of a whole message.
    static func message(_ bytes: [UInt8]) throws(NL80211DecodingError) -> (UInt8, NL80211Attributes) {
        let headerSize = NL80211Message.headerSize
        guard bytes.count >= headerSize else { throw .truncated(needed: headerSize, available: bytes.count) }
        let length = Int(bytes[0..<4].loadLittle(UInt32.self))
        guard length >= headerSize else { throw .badMessageLength(length) }
        guard length <= bytes.count else { throw .truncated(needed: length, available: bytes.count) }
        let type = bytes[4..<6].loadLittle(UInt16.self)
        guard type >= UInt16(NLMSG_MIN_TYPE) else { throw .controlMessage(type: type) }
        return (bytes[16], try walk(bytes[headerSize..<length]))
    }

    /// The attributes packed in `bytes`: each a length, a type and a value padded to 4 bytes; the padding after
    /// the last one may be cut off.
    static func walk(_ bytes: ArraySlice<UInt8>) throws(NL80211DecodingError) -> NL80211Attributes {
        var entries: [(type: UInt16, value: ArraySlice<UInt8>)] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard bytes.endIndex - offset >= 4 else { throw .badAttribute(type: 0, offset: offset) }
            let length = Int(bytes[offset..<offset + 2].loadLittle(UInt16.self))
            let type =
                bytes[offset + 2..<offset + 4].loadLittle(UInt16.self) & ~UInt16(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
            guard length >= 4, length <= bytes.endIndex - offset else {
                throw .badAttribute(type: type, offset: offset)
            }
            entries.append((type, bytes[(offset + 4)..<(offset + length)]))
            offset += min((length + 3) & ~3, bytes.endIndex - offset)
        }
        return NL80211Attributes(entries: entries)
    }

    func first(_ type: UInt16) -> ArraySlice<UInt8>? {
        entries.last { $0.type == type }?.value
    }

    private func fixed<Value: FixedWidthInteger>(_ type: UInt16, _: Value.Type) throws(NL80211DecodingError) -> Value? {
        guard let value = first(type) else { return nil }
        guard value.count == MemoryLayout<Value>.size else { throw .badAttributeSize(type: type, size: value.count) }
        return value.loadLittle(Value.self)
    }

    func uint32(_ type: UInt16) throws(NL80211DecodingError) -> UInt32? { try fixed(type, UInt32.self) }
    func int32(_ type: UInt16) throws(NL80211DecodingError) -> Int32? { try fixed(type, Int32.self) }
    func uint16(_ type: UInt16) throws(NL80211DecodingError) -> UInt16? { try fixed(type, UInt16.self) }
    /// A u8 the kernel fills from an s8 (signal levels in dBm).
    func signedByte(_ type: UInt16) throws(NL80211DecodingError) -> Int32? {
        try fixed(type, UInt8.self).map { Int32(Int8(bitPattern: $0)) }
    }
}

extension ArraySlice where Element == UInt8 {
    /// An integer in host byte order (netlink's) from exactly these bytes; the caller has checked the size.
    fileprivate func loadLittle<Value: FixedWidthInteger>(_: Value.Type) -> Value {
        var value: Value = 0
        Swift.withUnsafeMutableBytes(of: &value) { destination in
            for (position, byte) in self.prefix(MemoryLayout<Value>.size).enumerated() { destination[position] = byte }
        }
        return value
    }
}

extension WiFiStation {
    /// The figures as the model grades them: the average signal when the driver keeps one, else the last frame's.
    public var linkQuality: LinkQuality {
        LinkQuality(
            source: .nl80211, signalDBm: signalAverageDBm ?? signalDBm, expectedThroughputKbps: expectedThroughputKbps,
            transmitBitrateKbps: transmitBitrateKbps)
    }
}

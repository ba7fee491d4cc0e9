// SPDX-License-Identifier: Apache-2.0
/// nl80211 station information and connection-quality-monitor events, laid out as the kernel builds them (no radio
/// here to record from): net/wireless/nl80211.c nl80211_send_station (the reply to NL80211_CMD_GET_STATION:
/// IFINDEX, MAC, GENERATION, then STA_INFO nested without NLA_F_NESTED by nla_nest_start_noflag, its figures in the
/// order the function puts them, TX_BITRATE nested by nl80211_put_sta_rate) and cfg80211_prepare_cqm /
/// cfg80211_send_cqm (WIPHY, IFINDEX, MAC, then CQM nested). Numbers from include/uapi/linux/nl80211.h: commands
/// NEW_STATION=19, NOTIFY_CQM=64, ROAM=47; attributes WIPHY=1, IFINDEX=3, MAC=6, STA_INFO=21, GENERATION=46,
/// CQM=94; STA_INFO_INACTIVE_TIME=1, SIGNAL=7, TX_BITRATE=8, SIGNAL_AVG=13, RX_BITRATE=14, CONNECTED_TIME=16,
/// RX_BYTES64=23, TX_BYTES64=24, EXPECTED_THROUGHPUT=27, BEACON_SIGNAL_AVG=30; RATE_INFO_BITRATE=1, MCS=2,
/// BITRATE32=5; CQM_RSSI_THRESHOLD_EVENT=3, PKT_LOSS_EVENT=4, BEACON_LOSS_EVENT=8, RSSI_LEVEL=9. Built with
/// `NL80211Fixtures.message`, whose layout the identity tests check byte for byte against a hand-written reply.
enum NL80211StationFixtures {
    typealias Attribute = (type: UInt16, value: [UInt8])

    static func u8(_ value: Int8) -> [UInt8] { [UInt8(bitPattern: value)] }
    static func u16(_ value: UInt16) -> [UInt8] { NL80211Fixtures.littleEndian(value) }
    static func u32(_ value: UInt32) -> [UInt8] { NL80211Fixtures.littleEndian(value) }
    static func s32(_ value: Int32) -> [UInt8] { NL80211Fixtures.littleEndian(value) }
    static func u64(_ value: UInt64) -> [UInt8] { NL80211Fixtures.littleEndian(value) }

    /// Packs attributes as a nested attribute's value.
    static func nest(_ attributes: [Attribute]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (type, value) in attributes {
            bytes += u16(UInt16(4 + value.count)) + u16(type) + value
            bytes += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        return bytes
    }

    /// The GET_STATION dump reply for wlan0's access point: signal -58 dBm (average -61), 866.7 Mbit/s VHT tx rate,
    /// 520 Mbit/s expected throughput, as a multipart part (NLM_F_MULTI).
    static func stationReply(
        index: UInt32 = 3, signal: Int8? = -58, average: Int8? = -61, bitrate32: UInt32? = 8667,
        bitrate16: UInt16? = 8667, expected: UInt32? = 520_000, nestedFlag: Bool = false
    ) -> [UInt8] {
        var rate: [Attribute] = []
        if let bitrate16 { rate.append((1, u16(bitrate16))) }
        if let bitrate32 { rate.append((5, u32(bitrate32))) }
        rate.append((2, [9]))  // MCS 9
        var info: [Attribute] = [
            (16, u32(3_600)), (1, u32(120)), (23, u64(987_654_321)), (24, u64(123_456_789)),
        ]
        if let signal { info.append((7, u8(signal))) }
        if let average { info.append((13, u8(average))) }
        info.append((8, nest(rate)))
        info.append((14, nest([(5, u32(5200)), (1, u16(5200))])))
        if let expected { info.append((27, u32(expected))) }
        info.append((30, u8(-60)))
        let flag: UInt16 = nestedFlag ? 0x8000 : 0
        return NL80211Fixtures.message(
            command: 19, flags: 2, sequence: 7, port: 0x1234,
            attributes: [
                (3, u32(index)), (6, [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]), (46, u32(12)), (21 | flag, nest(info)),
            ])
    }

    /// A NOTIFY_CQM event on the "mlme" group with the given CQM attributes.
    static func cqmEvent(_ cqm: [Attribute], index: UInt32 = 3) -> [UInt8] {
        NL80211Fixtures.message(
            command: 64,
            attributes: [
                (1, u32(0)), (3, u32(index)), (6, [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]), (94, nest(cqm)),
            ])
    }

    /// RSSI below the threshold wpa_supplicant set, at -78 dBm.
    static let signalLow = cqmEvent([(3, u32(0)), (9, s32(-78))])
    /// RSSI back above it (a driver that does not report the level).
    static let signalHigh = cqmEvent([(3, u32(1))])
    /// Beacons lost (the threshold event's BEACON_LOSS value, and the flag form).
    static let beaconLossValue = cqmEvent([(3, u32(2))])
    static let beaconLossFlag = cqmEvent([(8, [])])
    /// 50 packets not acknowledged.
    static let packetLoss = cqmEvent([(4, u32(50))])
    /// A ROAM event: another BSS of the same network.
    static let roamEvent = NL80211Fixtures.message(
        command: 47, attributes: [(1, u32(0)), (3, u32(3)), (6, [0x02, 0x11, 0x22, 0x33, 0x44, 0x66])])
}

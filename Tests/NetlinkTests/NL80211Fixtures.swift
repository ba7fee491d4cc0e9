// SPDX-License-Identifier: Apache-2.0
/// nl80211 messages as the kernel sends them, for the decoder tests. This machine has no radio, so these are not
/// recorded from one: they are laid out by hand, field by field, from the code that builds them in the kernel
/// (net/wireless/nl80211.c: nl80211_send_iface and nl80211_send_chandef for NEW_INTERFACE, the reply to
/// GET_INTERFACE; nl80211_send_connect_result for CONNECT; nl80211_send_disconnected for DISCONNECT) with attribute
/// numbers from include/uapi/linux/nl80211.h: WIPHY=1, IFINDEX=3, IFNAME=4, IFTYPE=5, MAC=6, WIPHY_FREQ=38,
/// WIPHY_CHANNEL_TYPE=39, GENERATION=46, SSID=52, REASON_CODE=54, DISCONNECTED_BY_AP=71, STATUS_CODE=72, REQ_IE=77,
/// RESP_IE=78, 4ADDR=83, WIPHY_TX_POWER_LEVEL=98, WDEV=153, CHANNEL_WIDTH=159, CENTER_FREQ1=160, TXQ_STATS=265,
/// WIPHY_FREQ_OFFSET=290; commands NEW_INTERFACE=7, CONNECT=46, DISCONNECT=48.
///
/// Integers are little-endian (x86_64, host order, as netlink uses). Every attribute is padded to 4 bytes. The
/// nlmsg_type is the family id the controller handed out (0x22 here; it varies by boot). WDEV is a u64 without a
/// PAD attribute before it: nla_put_u64_64bit adds none on architectures with efficient unaligned access.
enum NL80211Fixtures {
    /// The reply to NL80211_CMD_GET_INTERFACE dump for wlan0 (ifindex 3), a station associated with "Home" on
    /// channel 1 (2412 MHz, HT20), as one part of a multipart dump (NLM_F_MULTI, seq 1, port 0x1234).
    static let interfaceReply: [UInt8] = [
        0xa4, 0x00, 0x00, 0x00, 0x22, 0x00, 0x02, 0x00,  // nlmsghdr: len 164, type 0x22, flags NLM_F_MULTI
        0x01, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,  //   seq 1, pid 0x1234
        0x07, 0x01, 0x00, 0x00,  // genlmsghdr: cmd NEW_INTERFACE, version 1
        0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,  // IFINDEX 3
        0x0a, 0x00, 0x04, 0x00, 0x77, 0x6c, 0x61, 0x6e, 0x30, 0x00, 0x00, 0x00,  // IFNAME "wlan0\0" + pad
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // WIPHY 0
        0x08, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00,  // IFTYPE 2 (STATION)
        0x0c, 0x00, 0x99, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // WDEV 1 (u64)
        0x0a, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00,  // MAC 02:00:00:00:00:0a + pad
        0x08, 0x00, 0x2e, 0x00, 0x05, 0x00, 0x00, 0x00,  // GENERATION 5
        0x05, 0x00, 0x53, 0x00, 0x00, 0x00, 0x00, 0x00,  // 4ADDR 0 (u8) + pad
        0x08, 0x00, 0x26, 0x00, 0x6c, 0x09, 0x00, 0x00,  // WIPHY_FREQ 2412
        0x08, 0x00, 0x22, 0x01, 0x00, 0x00, 0x00, 0x00,  // WIPHY_FREQ_OFFSET 0
        0x08, 0x00, 0x27, 0x00, 0x01, 0x00, 0x00, 0x00,  // WIPHY_CHANNEL_TYPE 1 (HT20)
        0x08, 0x00, 0x9f, 0x00, 0x01, 0x00, 0x00, 0x00,  // CHANNEL_WIDTH 1 (20 MHz)
        0x08, 0x00, 0xa0, 0x00, 0x6c, 0x09, 0x00, 0x00,  // CENTER_FREQ1 2412
        0x08, 0x00, 0x62, 0x00, 0xd0, 0x07, 0x00, 0x00,  // WIPHY_TX_POWER_LEVEL 2000 mBm
        0x08, 0x00, 0x34, 0x00, 0x48, 0x6f, 0x6d, 0x65,  // SSID "Home"
        0x0c, 0x00, 0x09, 0x81,  // TXQ_STATS (265 | NLA_F_NESTED), nested:
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  //   BACKLOG_BYTES 0
    ]

    /// An NL80211_CMD_CONNECT event on the "mlme" group (seq 0, port 0): wlan0 connected to BSSID
    /// 02:11:22:33:44:55, status 0. It carries the association request's IEs, whose first element happens to be the
    /// SSID; the decoder does not read IEs (the watcher asks with GET_INTERFACE instead).
    static let connectEvent: [UInt8] = [
        0x54, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00,  // nlmsghdr: len 84, type 0x22, flags 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //   seq 0, pid 0
        0x2e, 0x01, 0x00, 0x00,  // genlmsghdr: cmd CONNECT, version 1
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // WIPHY 0
        0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,  // IFINDEX 3
        0x0a, 0x00, 0x06, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x00, 0x00,  // MAC (BSSID) + pad
        0x06, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00,  // STATUS_CODE 0 (u16) + pad
        0x10, 0x00, 0x4d, 0x00,  // REQ_IE, 12 bytes:
        0x00, 0x04, 0x48, 0x6f, 0x6d, 0x65,  //   element 0 (SSID) "Home"
        0x01, 0x04, 0x02, 0x04, 0x0b, 0x16,  //   element 1 (supported rates)
        0x0a, 0x00, 0x4e, 0x00, 0x01, 0x04, 0x82, 0x84, 0x8b, 0x96, 0x00, 0x00,  // RESP_IE (rates) + pad
    ]

    /// An NL80211_CMD_DISCONNECT event: wlan0 deauthenticated by the AP, reason 3 (leaving).
    static let disconnectEvent: [UInt8] = [
        0x30, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00,  // nlmsghdr: len 48, type 0x22, flags 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //   seq 0, pid 0
        0x30, 0x01, 0x00, 0x00,  // genlmsghdr: cmd DISCONNECT, version 1
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // WIPHY 0
        0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,  // IFINDEX 3
        0x06, 0x00, 0x36, 0x00, 0x03, 0x00, 0x00, 0x00,  // REASON_CODE 3 (u16) + pad
        0x04, 0x00, 0x47, 0x00,  // DISCONNECTED_BY_AP (flag)
    ]

    /// Builds a message in the same layout: nlmsghdr (type 0x22), genlmsghdr (version 1), padded attributes. The
    /// tests check it against `interfaceReply` byte for byte before trusting it with other SSIDs.
    static func message(
        command: UInt8, flags: UInt16 = 0, sequence: UInt32 = 0, port: UInt32 = 0,
        attributes: [(type: UInt16, value: [UInt8])]
    ) -> [UInt8] {
        var body: [UInt8] = [command, 1, 0, 0]
        for (type, value) in attributes {
            body += littleEndian(UInt16(4 + value.count)) + littleEndian(type) + value
            body += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        let header =
            littleEndian(UInt32(16 + body.count)) + littleEndian(UInt16(0x22)) + littleEndian(flags)
            + littleEndian(sequence) + littleEndian(port)
        return header + body
    }

    /// The attributes of `interfaceReply` with another SSID (nil: none) and interface type.
    static func interfaceReply(ssid: [UInt8]?, type: UInt32 = 2) -> [UInt8] {
        var attributes: [(type: UInt16, value: [UInt8])] = [
            (3, littleEndian(UInt32(3))), (4, Array("wlan0".utf8) + [0]), (1, littleEndian(UInt32(0))),
            (5, littleEndian(type)), (153, littleEndian(UInt64(1))), (6, [0x02, 0, 0, 0, 0, 0x0a]),
            (46, littleEndian(UInt32(5))), (83, [0]), (38, littleEndian(UInt32(2412))), (290, littleEndian(UInt32(0))),
            (39, littleEndian(UInt32(1))), (159, littleEndian(UInt32(1))), (160, littleEndian(UInt32(2412))),
            (98, littleEndian(UInt32(2000))),
        ]
        if let ssid { attributes.append((52, ssid)) }
        attributes.append((0x8109, [0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]))
        return message(command: 7, flags: 2, sequence: 1, port: 0x1234, attributes: attributes)
    }

    static func littleEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

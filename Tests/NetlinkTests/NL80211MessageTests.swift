// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import Netlink

/// The nl80211 decoder on kernel-layout bytes (see NL80211Fixtures): the SSID of a GET_INTERFACE reply, what
/// CONNECT and DISCONNECT say, awkward SSIDs, and malformed input that must throw, never trap.
@Suite struct NL80211MessageTests {
    @Test func interfaceReplyGivesTheSSID() throws {
        let association = try NL80211Message.decode(NL80211Fixtures.interfaceReply)
        #expect(association == WiFiAssociation(interfaceIndex: 3, ssid: Array("Home".utf8)))
        let message = try NL80211Message.parse(NL80211Fixtures.interfaceReply)
        #expect(message.interfaceType == 2)
    }

    @Test func theBuilderMatchesTheHandLaidFixture() {
        #expect(NL80211Fixtures.interfaceReply(ssid: Array("Home".utf8)) == NL80211Fixtures.interfaceReply)
    }

    @Test func connectNamesTheInterfaceButNotTheSSID() throws {
        let message = try NL80211Message.parse(NL80211Fixtures.connectEvent)
        #expect(message.command == NL80211Message.connect)
        #expect(message.interfaceIndex == 3)
        #expect(message.ssid == nil)
        #expect(NL80211Message.changeCommands.contains(message.command))
        #expect(try NL80211Message.decode(NL80211Fixtures.connectEvent) == nil)
    }

    @Test func disconnectLeavesNoSSID() throws {
        #expect(
            try NL80211Message.decode(NL80211Fixtures.disconnectEvent) == WiFiAssociation(interfaceIndex: 3, ssid: nil))
    }

    @Test func anUnassociatedStationHasNoSSID() throws {
        let association = try NL80211Message.decode(NL80211Fixtures.interfaceReply(ssid: nil))
        #expect(association == WiFiAssociation(interfaceIndex: 3, ssid: nil))
    }

    @Test func anAccessPointsOwnSSIDIsNotAnAssociation() throws {
        let reply = NL80211Fixtures.interfaceReply(ssid: Array("MyHotspot".utf8), type: 3)
        #expect(try NL80211Message.decode(reply) == WiFiAssociation(interfaceIndex: 3, ssid: nil))
    }

    @Test func aWirelessDeviceWithoutANetdevIsSkipped() throws {
        // A P2P device: no IFINDEX, no IFNAME (nl80211_send_iface puts them only for a netdev).
        let reply = NL80211Fixtures.message(
            command: 7, attributes: [(1, NL80211Fixtures.littleEndian(UInt32(0))), (5, [10, 0, 0, 0])])
        #expect(try NL80211Message.decode(reply) == nil)
    }

    static let awkwardSSIDs: [[UInt8]] = [
        [],
        Array(repeating: 0x41, count: 32),
        [0xff, 0xfe, 0x00, 0x80, 0xc3],  // not UTF-8, with a NUL inside
        Array("\"quoted\" 'and' \\".utf8),
        Array("100% %41 %%".utf8),
        Array("a".utf8), Array("ab".utf8), Array("abc".utf8),  // every padding length
        Array("Café ☕️".utf8),
        [0x20, 0x20],  // only spaces
    ]

    @Test(arguments: awkwardSSIDs)
    func awkwardSSIDsSurviveDecodingAndKeying(_ ssid: [UInt8]) throws {
        let association = try NL80211Message.decode(NL80211Fixtures.interfaceReply(ssid: ssid))
        #expect(association?.ssid == ssid)
        // And on into the model: the network key escapes the bytes losslessly.
        let key = NetworkIdentity.wifi(ssid: ssid).key
        #expect(NetworkKey(key.description)?.ssid == ssid)
    }

    @Test func anSSIDAsTheLastAttributeWithoutPaddingIsRead() throws {
        var bytes = NL80211Fixtures.message(
            command: 7, attributes: [(3, [3, 0, 0, 0]), (5, [2, 0, 0, 0]), (52, [0x41])])
        bytes.removeLast(3)  // the padding after the last attribute
        bytes.replaceSubrange(0..<4, with: NL80211Fixtures.littleEndian(UInt32(bytes.count)))
        #expect(try NL80211Message.decode(bytes)?.ssid == [0x41])
    }

    @Test func anSSIDLongerThan32BytesIsRejected() {
        let reply = NL80211Fixtures.interfaceReply(ssid: Array(repeating: 0x42, count: 33))
        #expect(throws: NL80211DecodingError.ssidTooLong(33)) { try NL80211Message.decode(reply) }
    }

    @Test func everyTruncationThrows() {
        let full = NL80211Fixtures.interfaceReply
        for length in 0..<full.count {
            #expect(throws: NL80211DecodingError.self) { try NL80211Message.decode(Array(full.prefix(length))) }
        }
    }

    @Test func malformedHeadersAndAttributesThrow() {
        var shortLength = NL80211Fixtures.interfaceReply
        shortLength[0] = 12
        #expect(throws: NL80211DecodingError.badMessageLength(12)) { try NL80211Message.decode(shortLength) }

        var control = NL80211Fixtures.disconnectEvent
        control[4] = 2  // NLMSG_ERROR
        #expect(throws: NL80211DecodingError.controlMessage(type: 2)) { try NL80211Message.decode(control) }

        var tinyAttribute = NL80211Fixtures.disconnectEvent
        tinyAttribute[20] = 2  // WIPHY's nla_len below its own header
        #expect(throws: NL80211DecodingError.badAttribute(type: 1, offset: 20)) {
            try NL80211Message.decode(tinyAttribute)
        }

        var overrun = NL80211Fixtures.disconnectEvent
        overrun[44] = 0x40  // the last attribute claims 64 bytes
        #expect(throws: NL80211DecodingError.badAttribute(type: 71, offset: 44)) { try NL80211Message.decode(overrun) }

        let shortIndex = NL80211Fixtures.message(command: 48, attributes: [(3, [3, 0])])
        #expect(throws: NL80211DecodingError.badAttributeSize(type: 3, size: 2)) {
            try NL80211Message.decode(shortIndex)
        }
    }

    @Test func corruptedBytesNeverTrap() {
        // A seeded walk over single-byte corruptions of every fixture: each must decode or throw, nothing else.
        var generator = SplitMix64(seed: 0x5eed)
        for fixture in [NL80211Fixtures.interfaceReply, NL80211Fixtures.connectEvent, NL80211Fixtures.disconnectEvent] {
            for _ in 0..<2_000 {
                var bytes = fixture
                for _ in 0...Int(generator.next() % 3) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
                _ = try? NL80211Message.decode(bytes)
            }
        }
    }
}

/// A tiny deterministic generator, so a failing corruption can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

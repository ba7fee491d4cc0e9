// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import Netlink

/// RTM_GETLINK built and its answer read by hand (`LinkCounterMessage`), on bytes laid out as the kernel sends
/// them; the usage tests read real interfaces' counters through it.
@Suite struct LinkCounterMessageTests {
    typealias Bytes = RouteLookupMessage

    @Test func theRequestAsksForOneLink() {
        let request = LinkCounterMessage.request(index: 0x0102_0304, sequence: 9)
        #expect(
            request == [
                32, 0, 0, 0, 18, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
            ])
    }

    /// An RTM_NEWLINK with `attributes` after its ifinfomsg.
    static func reply(type: UInt16 = 16, sequence: UInt32, attributes: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        Bytes.appendLittleEndian(UInt32(32 + attributes.count), to: &message)
        Bytes.appendLittleEndian(type, to: &message)
        Bytes.appendLittleEndian(UInt16(0), to: &message)
        Bytes.appendLittleEndian(sequence, to: &message)
        Bytes.appendLittleEndian(UInt32(0), to: &message)
        message += [UInt8](repeating: 0, count: 16)
        return message + attributes
    }

    static func stats(received: UInt64, sent: UInt64) -> [UInt8] {
        var value: [UInt8] = []
        for field in [UInt64(7), 8, received, sent] + [UInt64](repeating: 0, count: 20) {
            Bytes.appendLittleEndian(field, to: &value)
        }
        return Bytes.attribute(23, value)
    }

    @Test func theNameAndTheByteCountersAreRead() {
        let attributes =
            Bytes.attribute(1, [2, 0, 0, 0, 0, 1]) + Bytes.attribute(3, Array("veth0\0".utf8))
            + Self.stats(received: 0x1_0000_0001, sent: 42)
        #expect(
            LinkCounterMessage.answer(Self.reply(sequence: 5, attributes: attributes), index: 3, sequence: 5)
                == .reading(
                    CounterReading(index: 3, name: "veth0", counters: ByteCounts(sent: 42, received: 0x1_0000_0001))))
    }

    @Test func otherAnswersAreToldApart() {
        let whole = Self.reply(
            sequence: 5, attributes: Bytes.attribute(3, Array("eth0\0".utf8)) + Self.stats(received: 1, sent: 2))
        #expect(LinkCounterMessage.answer(whole, index: 2, sequence: 6) == .unrelated)
        #expect(
            LinkCounterMessage.answer(
                Self.reply(type: 2, sequence: 5, attributes: [0xED, 0xFF, 0xFF, 0xFF]), index: 2, sequence: 5) == .none)
        let noCounters = Self.reply(sequence: 5, attributes: Bytes.attribute(3, Array("eth0\0".utf8)))
        #expect(LinkCounterMessage.answer(noCounters, index: 2, sequence: 5) == .none)
        // Cut anywhere: never a reading with wrong numbers, never a crash.
        for length in 0..<whole.count {
            let answer = LinkCounterMessage.answer(Array(whole[..<length]), index: 2, sequence: 5)
            #expect(
                answer != .reading(CounterReading(index: 2, name: "eth0", counters: ByteCounts(sent: 0, received: 0))))
            if case .reading = answer { Issue.record("a cut message read as a reading at \(length) bytes") }
        }
    }
}

import CNetlink
import Testing

@testable import Netlink

/// The notification reader walks a datagram's messages itself: lengths from the wire must never take it past the
/// datagram, padding must be honoured, and control messages are not handed on.
@Suite struct NotificationReaderTests {
    /// A message of `type` with `payload` bytes, padded to 4 bytes as the kernel pads it; `length` overrides the
    /// header's length field.
    private func message(type: Int32, payload: Int, length: Int? = nil) -> [UInt8] {
        let total = 16 + payload
        var bytes = [UInt8](repeating: 0xAB, count: (total + 3) & ~3)
        let stated = UInt32(length ?? total)
        withUnsafeBytes(of: stated.littleEndian) { bytes.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt16(type).littleEndian) { bytes.replaceSubrange(4..<6, with: $0) }
        return bytes
    }

    private func walk(_ datagram: [UInt8]) -> (result: Int32, types: [UInt16]) {
        var bytes = datagram
        var types: [UInt16] = []
        let result = bytes.withUnsafeMutableBytes { buffer in
            NotificationReader.forEachMessage(in: buffer) { types.append($0.pointee.nlmsg_type) }
        }
        return (result, types)
    }

    @Test func handsOnEachMessageAcrossPadding() {
        let datagram =
            message(type: Int32(RTM_NEWROUTE), payload: 13) + message(type: Int32(RTM_NEWLINK), payload: 2)
            + message(type: Int32(RTM_DELADDR), payload: 0)
        let (result, types) = walk(datagram)
        #expect(result == 3)
        #expect(types == [UInt16(RTM_NEWROUTE), UInt16(RTM_NEWLINK), UInt16(RTM_DELADDR)])
    }

    @Test func skipsControlMessagesButCountsTheDatagramAsRead() {
        let (result, types) = walk(message(type: NLMSG_NOOP, payload: 4) + message(type: NLMSG_DONE, payload: 4))
        #expect(result == 1)
        #expect(types.isEmpty)
    }

    @Test(arguments: [0, 8, 15, 10_000])
    func aLengthThatDoesNotFitIsTruncation(stated: Int) {
        let datagram =
            message(type: Int32(RTM_NEWROUTE), payload: 8)
            + message(type: Int32(RTM_NEWROUTE), payload: 8, length: stated)
        let (result, types) = walk(datagram)
        #expect(result == -NLE_MSG_TRUNC)
        #expect(types == [UInt16(RTM_NEWROUTE)])
    }
}

// SPDX-License-Identifier: Apache-2.0
import CNetlink
import NetlinkTestSupport
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

/// Any local process may send a datagram to the watcher's netlink port; only the kernel's count. Two real sockets
/// in a namespace of the test's own: one forges a link notification to the other's port, then the kernel sends a
/// real one.
@Suite struct NotificationReaderSenderTests {
    @Test func datagramsFromOtherProcessesAreIgnoredAndTheKernelsRead() throws {
        let namespace = try TestNetworkNamespace.withVethPair()
        defer { namespace.delete() }
        let (receiver, forger) = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
            (try NetlinkSocket(role: .notifications(receiveBufferSize: 1 << 20)), try NetlinkSocket(role: .requests))
        }
        var port = sockaddr_nl()
        var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
        _ = withUnsafeMutablePointer(to: &port) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(receiver.fileDescriptor, $0, &length) }
        }
        // A forged RTM_NEWLINK: a bare header and ifinfomsg, as a kernel notification would start.
        var forged = [UInt8](repeating: 0, count: 32)
        withUnsafeBytes(of: UInt32(32).littleEndian) { forged.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt16(RTM_NEWLINK).littleEndian) { forged.replaceSubrange(4..<6, with: $0) }
        let sent = forged.withUnsafeBytes { bytes in
            withUnsafePointer(to: &port) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(forger.fileDescriptor, bytes.baseAddress, bytes.count, 0, $0, length)
                }
            }
        }
        #expect(sent == 32)
        let reader = NotificationReader()
        var handed = 0
        #expect(reader.read(from: receiver.fileDescriptor) { _ in handed += 1 } == 1, "the datagram was read")
        #expect(handed == 0, "but none of it handed on")
        // The kernel's own notification for a real change is handed on.
        try namespace.ip("link set va down")
        var types: [UInt16] = []
        for _ in 0..<8 where types.isEmpty {
            _ = reader.read(from: receiver.fileDescriptor) { types.append($0.pointee.nlmsg_type) }
        }
        #expect(types.contains(UInt16(RTM_NEWLINK)))
    }
}

// SPDX-License-Identifier: Apache-2.0
import CNetlink
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The neighbour reader takes an entry's two attributes, NDA_DST and NDA_LLADDR, where they lie (issue 41), as the
/// link and address readers read their attribute tables: every entry of a real dump, of each state and family,
/// must read as libnl's neighbour parser reads it, added and removed.
@Suite struct NeighbourConversionTests {
    @Test func everyEntryReadsAsLibnlReadsIt() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            try namespace.ip("neigh replace 192.0.2.5 lladdr 02:00:00:00:00:05 dev va nud stale")
            try namespace.ip("neigh replace 192.0.2.6 lladdr 02:00:00:00:00:06 dev va nud permanent")
            try namespace.ip("neigh replace 192.0.2.7 lladdr 02:00:00:00:00:07 dev va nud reachable")
            try namespace.ip("neigh replace 192.0.2.7 dev va nud failed")
            try namespace.ip("-6 neigh replace 2001:db8::5 lladdr 02:00:00:00:00:aa dev va nud delay")
            try namespace.ip("-6 neigh replace 2001:db8::6 dev va nud incomplete")
            let messages = try RawDump.messages(Int32(RTM_GETNEIGH), answeredBy: Int32(RTM_NEWNEIGH), in: namespace)
            var read: [KernelEvent] = []
            for message in messages {
                for removed in [false, true] {
                    guard let converted = Self.convert(message, removed: removed) else { continue }
                    #expect([converted] == LibnlObjectOracle.neighbourEvent(message, removed: removed).map { [$0] })
                    if !removed { read.append(converted) }
                }
            }
            func entry(_ address: String, _ linkLayer: String) -> KernelEvent {
                .neighbourChanged(
                    Neighbour(interfaceIndex: va, address: IPAddress(address)!, linkLayerAddress: linkLayer))
            }
            #expect(read.contains(entry("192.0.2.5", "02:00:00:00:00:05")))
            #expect(read.contains(entry("192.0.2.6", "02:00:00:00:00:06")))
            #expect(read.contains(entry("2001:db8::5", "02:00:00:00:00:aa")))
            // FAILED and INCOMPLETE carry no address worth keeping: the entry is gone.
            #expect(read.contains(.neighbourRemoved(interfaceIndex: va, address: IPAddress("192.0.2.7")!)))
            #expect(read.contains(.neighbourRemoved(interfaceIndex: va, address: IPAddress("2001:db8::6")!)))
        }
    }

    /// The reader's event for a message; nil when it is not relevant or malformed.
    private static func convert(_ message: [UInt8], removed: Bool) -> KernelEvent? {
        var message = message
        return message.withUnsafeMutableBytes { bytes in
            NeighbourConversion.events(
                from: bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), removed: removed
            ).events?.first
        }
    }
}

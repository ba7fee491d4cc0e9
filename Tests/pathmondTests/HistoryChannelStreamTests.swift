// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import SDEvent
import Testing

@testable import pathmond

/// GetHistory's stream on a recorded connection whose writability the test controls: every entry arrives, in
/// order, even across a stall; only the interface filter applies to new entries; a client too far behind is closed.
@Suite struct HistoryChannelStreamTests {
    static func entry(_ sequence: UInt64, interface: String = "eth0") -> PathHistoryEntry {
        PathHistoryEntry(
            sequence: sequence, wallMicroseconds: 1, monotonicMicroseconds: sequence,
            before: PathSummary(status: .unsatisfied), after: PathSummary(status: .satisfied, interfaces: [interface]),
            cause: .unspecified)
    }

    static func sentSequences(_ channel: RecordingOutput) throws -> [UInt64] {
        var result: [UInt64] = []
        for bytes in channel.takeWritten() {
            let reply = try VarlinkCodec().decode(VarlinkReply<Methods.HistoryReply>.self, from: bytes)
            #expect(reply.continues == true)
            result += try #require(reply.parameters).entries.map(\.sequence)
        }
        return result
    }

    @Test func aStalledClientGetsEveryEntryInOrderOnceItReads() throws {
        let channel = RecordingOutput()
        let stream = HistoryChannelStream(
            query: PathHistoryQuery(sinceWallMicroseconds: 99), output: channel, loop: try SDEventLoop())
        stream.release()
        stream.deliver(Self.entry(1))
        channel.isWritable = false
        for sequence in 2...50 { stream.deliver(Self.entry(UInt64(sequence))) }
        #expect(try Self.sentSequences(channel) == [1])
        channel.isWritable = true
        stream.flushPending()
        #expect(try Self.sentSequences(channel) == Array(2...50))
    }

    @Test func onlyTheInterfaceFilterAppliesToNewEntries() throws {
        let channel = RecordingOutput()
        let stream = HistoryChannelStream(
            query: PathHistoryQuery(interface: "wlan0", limit: 1), output: channel, loop: try SDEventLoop())
        stream.release()
        stream.deliver(Self.entry(1))
        stream.deliver(Self.entry(2, interface: "wlan0"))
        stream.deliver(Self.entry(3, interface: "wlan0"))
        #expect(try Self.sentSequences(channel) == [2, 3])
    }

    @Test func aClientTooFarBehindIsClosed() throws {
        let channel = RecordingOutput()
        let stream = HistoryChannelStream(query: PathHistoryQuery(), output: channel, loop: try SDEventLoop())
        stream.release()
        channel.isWritable = false
        for sequence in 1..<HistoryChannelStream.maximumBacklog { stream.deliver(Self.entry(UInt64(sequence))) }
        #expect(!channel.isClosed)
        stream.deliver(Self.entry(UInt64(HistoryChannelStream.maximumBacklog)))
        stream.deliver(Self.entry(UInt64(HistoryChannelStream.maximumBacklog + 1)))
        #expect(channel.isClosed)
    }

    @Test func entriesRecordedWhileHeldArriveOnReleaseInOrder() throws {
        let channel = RecordingOutput()
        let stream = HistoryChannelStream(query: PathHistoryQuery(), output: channel, loop: try SDEventLoop())
        for sequence in 1...5 { stream.deliver(Self.entry(UInt64(sequence))) }
        #expect(try Self.sentSequences(channel) == [], "nothing is written while the connection moves")
        stream.release()
        stream.deliver(Self.entry(6))
        #expect(try Self.sentSequences(channel) == Array(1...6))
    }

    @Test func tooManyEntriesWhileHeldEndTheConnectionOnRelease() throws {
        let channel = RecordingOutput()
        let stream = HistoryChannelStream(query: PathHistoryQuery(), output: channel, loop: try SDEventLoop())
        for sequence in 1...HistoryChannelStream.maximumBacklog + 1 { stream.deliver(Self.entry(UInt64(sequence))) }
        #expect(!channel.isClosed, "not closed while the stored entries are still being written")
        stream.release()
        #expect(channel.isClosed)
        #expect(try Self.sentSequences(channel) == [])
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathProtocol
import SystemPackage
import Testing

@testable import pathmond

/// GetHistory's reply written from the shared encoding: the same entries the model selects, whatever the query; an
/// encoding brought up to date from the previous one equals one made from scratch; the newest entries that fit, and
/// "truncated" when older ones are left out; bounded work per turn; written correctly through a small socket.
@Suite struct HistoryReplyCursorTests {
    static func history(_ count: Int, capacity: Int? = nil) -> PathHistory {
        var history = PathHistory(capacity: capacity ?? count)
        for index in 0..<count {
            let interface = ["eth0", "wlan0", "wwan0"][index % 3]
            history.append(
                wallMicroseconds: 1_000 + Int64(index), monotonicMicroseconds: UInt64(index), bootID: "boot",
                before: PathSummary(status: .unsatisfied, unsatisfiedReason: .noCarrier),
                after: PathSummary(status: .satisfied, interfaces: [interface]),
                cause: PathChangeCause(kind: .kernel, kernelTables: [.route], interfaces: [interface]))
        }
        return history
    }

    /// Runs a cursor to the end through a socketpair, the test reading the other end; the reply and the turns taken.
    static func reply(
        _ encoded: EncodedHistory, _ query: PathHistoryQuery, continues: Bool = false, sendBuffer: Int32? = nil
    ) throws -> (reply: VarlinkReply<Methods.HistoryReply>, bytes: [UInt8], turns: Int) {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(pair[1], F_SETFL, fcntl(pair[1], F_GETFL) | O_NONBLOCK)
        if var size = sendBuffer {
            setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let cursor = HistoryReplyCursor(history: encoded, query: query, continues: continues)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var turns = 0
        while true {
            turns += 1
            let progress = cursor.write(to: FileDescriptor(rawValue: pair[0]))
            while true {
                let count = read(pair[1], &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer[..<count]
            }
            if progress == .finished { break }
            if case .failed(let error) = progress { throw error }
        }
        while true {
            let count = read(pair[1], &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        #expect(received.last == 0)
        let reply = try VarlinkCodec().decode(VarlinkReply<Methods.HistoryReply>.self, from: Array(received.dropLast()))
        return (reply, received, turns)
    }

    @Test(arguments: [
        PathHistoryQuery(), PathHistoryQuery(limit: 5), PathHistoryQuery(limit: 0), PathHistoryQuery(limit: -3),
        PathHistoryQuery(interface: "wlan0"), PathHistoryQuery(interface: "wlan"),
        PathHistoryQuery(sinceWallMicroseconds: 1_000 + 2_000), PathHistoryQuery(sinceWallMicroseconds: 5_000_000),
        PathHistoryQuery(sinceWallMicroseconds: 1_500, interface: "eth0", limit: 100),
    ])
    func theReplyHoldsWhatTheModelSelects(_ query: PathHistoryQuery) throws {
        let history = Self.history(3_000)
        let encoded = EncodedHistory.empty.advanced(
            to: 1, oldestSequence: history.oldest?.sequence, newer: history.entries)
        let (reply, _, _) = try Self.reply(encoded, query)
        let expected = history.entries(matching: query).map(WireHistoryEntry.init)
        #expect(try #require(reply.parameters).entries == expected)
        #expect(reply.parameters?.truncated == nil)
        #expect(reply.continues != true)
    }

    /// An encoding advanced change by change (the ring dropping the oldest, a smaller bound) is the one made at once.
    @Test func anAdvancedEncodingEqualsAFreshOne() throws {
        var history = Self.history(2_500, capacity: 2_500)
        var encoded = EncodedHistory.empty.advanced(
            to: 1, oldestSequence: history.oldest?.sequence, newer: history.entries)
        var version: UInt64 = 1
        for step in 0..<1_500 {
            history.append(
                wallMicroseconds: 9_000 + Int64(step), monotonicMicroseconds: 0,
                before: PathSummary(status: .satisfied),
                after: PathSummary(status: .satisfied), cause: .unspecified)
            if step == 700 { history.setCapacity(1_200) }
            guard step % 97 == 0 || step == 1_499 else { continue }
            version += 1
            encoded = encoded.advanced(
                to: version, oldestSequence: history.oldest?.sequence,
                newer: history.entries(after: encoded.newestSequence!))  // never empty here
            #expect(encoded.count == history.count)
            let (reply, _, _) = try Self.reply(encoded, PathHistoryQuery())
            #expect(reply.parameters?.entries == history.entries.map(WireHistoryEntry.init))
        }
        // Whole segments were kept, not re-encoded: the encoding holds at most one segment more than the entries.
        #expect(encoded.segments.count <= history.count / EncodedHistorySegment.capacity + 2)
    }

    /// At the largest history a reply holds the newest entries that fit in what a client reads, and says it left
    /// the others out; one call's reply is written over many turns, none doing more than its share.
    @Test func aReplyTooLargeHoldsTheNewestAndSaysSo() throws {
        let history = Self.history(PathHistory.maximumCapacity)
        let encoded = EncodedHistory.empty.advanced(
            to: 1, oldestSequence: history.oldest?.sequence, newer: history.entries)
        let (reply, bytes, turns) = try Self.reply(encoded, PathHistoryQuery())
        let entries = try #require(reply.parameters).entries
        #expect(reply.parameters?.truncated == true)
        #expect(bytes.count <= VarlinkCodec.maximumReplySize)
        // Cut to what fits, not halved until it does (a quarter of the history was shown).
        #expect(bytes.count > VarlinkCodec.maximumReplySize - 2_000)
        #expect(entries.last?.sequence == UInt64(PathHistory.maximumCapacity))
        #expect(entries.map(\.sequence) == Array(entries.first!.sequence...entries.last!.sequence))  // not empty
        #expect(turns >= bytes.count / HistoryReplyCursor.bytesPerTurn)
    }

    /// Through a socket that takes a few kilobytes at a time the bytes arrive whole and in order.
    @Test func aSmallSocketGetsTheReplyWhole() throws {
        let history = Self.history(2_000)
        let encoded = EncodedHistory.empty.advanced(
            to: 1, oldestSequence: history.oldest?.sequence, newer: history.entries)
        let (reply, _, turns) = try Self.reply(
            encoded, PathHistoryQuery(interface: "eth0"), continues: true, sendBuffer: 4096)
        #expect(reply.continues == true)
        #expect(
            reply.parameters?.entries
                == history.entries(matching: PathHistoryQuery(interface: "eth0")).map(WireHistoryEntry.init))
        #expect(turns > 10)
    }

    /// The history's encoding is made once per version and shared by every caller.
    @Test func callersShareOneEncodingPerVersion() throws {
        let log = HistoryLog(history: Self.history(100, capacity: 1_000))
        let first = log.encoded()
        #expect(log.encoded() === first)
        let path = Path(status: .satisfied)
        _ = log.record(before: path, after: path, cause: .unspecified)
        let second = log.encoded()
        #expect(second !== first)
        #expect(second.count == 101)
        #expect(log.encoded() === second)
        // The first segment was extended (copied), not re-encoded from the entries: same bytes, one more entry.
        #expect(second.byteCount > first.byteCount)
    }
}

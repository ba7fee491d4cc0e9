// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Many route look-ups sent in batches (many requests per datagram, replies read in bulk) answer exactly as the same
/// look-ups asked one at a time.
@Suite struct RouteLookupBatchTests {
    @Test func batchedLookUpsAnswerLikeOneAtATime() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("address add 10.2.0.2/24 dev vb")
            for _ in 0..<250 where try !namespace.ip("link show vb").output.contains("state UP") {
                try await Task.sleep(for: .milliseconds(20))
            }
            try namespace.ip("route add default via 10.1.0.1 dev va")
            try namespace.ip("route add 198.18.0.0/16 via 10.2.0.1 dev vb")
            try namespace.ip("route add unreachable 198.19.0.0/16")
            try namespace.ip("rule add from 10.2.0.2 table 7")
            try namespace.ip("route add default via 10.2.0.1 dev vb table 7")
            let lookup = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
                try RouteLookupSocket()
            }
            // More queries than one batch holds, over every kind of answer, with and without a source.
            var queries: [RouteQuery] = []
            for index in 0..<300 {
                let destination = IPAddress(bytes: [198, UInt8(17 + index % 3), UInt8(index / 256), UInt8(index % 256)]
                )!
                queries.append(RouteQuery(destination: destination))
                queries.append(RouteQuery(destination: destination, source: IPAddress(bytes: [10, 2, 0, 2])))
            }
            queries.append(RouteQuery(destination: IPAddress(bytes: [0x20, 0x01] + [UInt8](repeating: 0, count: 14))!))
            let answers = lookup.decide(queries)
            let batched = Dictionary(answers) { first, _ in first }
            var single: [RouteQuery: RouteDecision] = [:]
            for query in queries { single[query] = lookup.decide(query) }
            #expect(answers.count == queries.count && batched.count == queries.count, "each answered once")
            #expect(batched == single)
            #expect(Set(batched.values.map(\.interfaceIndex)).count == 3, "va, vb and nowhere")
            // A reply longer than its slot in the batch read (here every one: a route's is about 100 bytes) is
            // asked again alone, and the answers are the same.
            let cramped = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
                try RouteLookupSocket(replySlotSize: 48)
            }
            #expect(
                Dictionary(cramped.decide(queries.prefix(150))) { first, _ in first }
                    == single.filter { queries.prefix(150).contains($0.key) })
        }
    }

    /// Replies the kernel dropped (a receive buffer too small for a batch's: ENOBUFS) are missing answers, and the
    /// look-up does not wait for them: the socket's receive timeout is set to 30 s here, and the batch returns
    /// long before it with what was queued. The next ask of a dropped query is answered (stale replies are
    /// skipped by sequence number).
    @Test func droppedRepliesAreNotWaitedFor() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("route add default via 10.1.0.1 dev va onlink")
            let lookup = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
                try RouteLookupSocket(receiveBuffer: 4096)
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            _ = setsockopt(
                lookup.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let queries = (0..<RouteLookupSocket.batchSize).map {
                RouteQuery(destination: IPAddress(bytes: [198, 18, 0, UInt8($0)])!)
            }
            let started = ContinuousClock.now
            let answers = Dictionary(lookup.decide(queries)) { first, _ in first }
            let waited = ContinuousClock.now - started
            #expect(!answers.isEmpty && answers.count < queries.count, "some replies dropped: \(answers.count)")
            #expect(waited < .seconds(30), "returned without a receive timeout: \(waited)")
            let dropped = try #require(queries.first { answers[$0] == nil })
            let again = lookup.decide([dropped])
            #expect(again.count == 1 && again.first?.query == dropped && again.first?.decision.interfaceIndex != nil)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// fan-out's reference: the least any daemon on this machine can do for one route change and N subscribers. A
/// "raw daemon" thread, blocked in recv on a NETLINK_ROUTE socket bound to RTMGRP_IPV4_ROUTE, reads each change of
/// the default route and writes one reply to each of N Unix stream connections with plain write(2) in a tight loop:
/// no decoding beyond the headers, no encoding, no thread hop, no lock held while writing. The replies are bytes
/// pathmond itself sent in the same run (`setReplies`), so sizes match; the subscribers at the other ends are worker
/// processes laid out like pathmond's (`RawSide`). Its socket lives in the bench's peer namespace, which pathmond does not watch: the raw daemon's
/// changes leave pathmond idle, and pathmond's leave the raw daemon idle.
final class RawFanOut: @unchecked Sendable {
    // @unchecked: `netlink` and `writeEnds` are set in init and then used only by the daemon thread, which closes
    // them as it ends; the other threads touch `state` (behind a lock) and `finished`.

    /// The bytes to write for one direction of change: one reply for every subscriber, or one each.
    struct Replies: Sendable {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []

        /// Packs `replies` (one, or one per subscriber) into one buffer, so the write loop only offsets a pointer.
        init(_ replies: [[UInt8]]) {
            for reply in replies {
                ranges.append(bytes.count..<(bytes.count + reply.count))
                bytes += reply
            }
        }
    }

    private struct State {
        var added: Replies?
        var removed: Replies?
        var stopped = false
        var writeLoops: [UInt64] = []
        var failedWrites = 0
        var overflows = 0
    }

    private let writeEnds: [Int32]
    /// The order the connections are written in: shuffled, as pathmond's (its subscribers are walked in a hashed
    /// dictionary's order), so that consecutive writes wake the subscriber processes alike on both sides, not one
    /// process's whole share after another's.
    private let writeOrder: [Int]
    private let netlink: Int32
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Opens the netlink socket in `namespace.peer` and starts the daemon thread, which writes to `writeEnds` (the
    /// accepted ends of its subscribers' connections) and closes them as it ends.
    init(in namespace: BenchNamespace, writeEnds: [Int32]) throws(BenchError) {
        let netlink = try namespace.entered(peer: true) { () throws(BenchError) in
            try RTNetlink.openSocket(groups: RTNetlink.ipv4RouteGroup)
        }
        // A blocking recv that returns every 100 ms when idle, so that `stop` ends the thread; an event still wakes
        // it at once.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(netlink, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.netlink = netlink
        self.writeEnds = writeEnds
        writeOrder = writeEnds.indices.shuffled()
        startThread { [self] in serve() }
    }

    /// What to write from now on for an added (or removed) default route.
    func setReplies(added: Bool, _ replies: Replies) {
        precondition(replies.ranges.count == 1 || replies.ranges.count == writeEnds.count, "one reply, or one each")
        state.withLock { state in
            if added { state.added = replies } else { state.removed = replies }
        }
    }

    /// The time from each change's recv returning to its last write(2) returning since the last call, in ns.
    func takeWriteLoops() -> [UInt64] {
        state.withLock { state in
            defer { state.writeLoops = [] }
            return state.writeLoops
        }
    }

    var failedWrites: Int { state.withLock { $0.failedWrites } }
    var overflows: Int { state.withLock { $0.overflows } }

    /// Ends the daemon thread (within 100 ms) and waits for it, so no write outlives the read ends.
    func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
    }

    private func serve() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer {
            buffer.deallocate()
            close(netlink)
            for fd in writeEnds { close(fd) }
            finished.signal()
        }
        while !state.withLock({ $0.stopped }) {
            let count = recv(netlink, buffer.baseAddress, buffer.count, 0)
            let start = monotonicNanoseconds()
            if count < 0 {
                if errno == ENOBUFS { state.withLock { $0.overflows += 1 } }
                if errno == EAGAIN || errno == EINTR || errno == ENOBUFS { continue }
                return
            }
            for message in RawMessage.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                let added = RawMatch.defaultRoute(added: true).matches(message)
                guard added || RawMatch.defaultRoute(added: false).matches(message) else { continue }
                guard let replies = state.withLock({ added ? $0.added : $0.removed }) else { continue }
                let failed = write(replies)
                let loop = monotonicNanoseconds() - start
                state.withLock { state in
                    state.writeLoops.append(loop)
                    state.failedWrites += failed
                }
            }
        }
    }

    /// One reply to every subscriber; the number of writes that failed or fell short.
    private func write(_ replies: Replies) -> Int {
        var failed = 0
        replies.bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for index in writeOrder {
                let fd = writeEnds[index]
                let range = replies.ranges.count == 1 ? replies.ranges[0] : replies.ranges[index]
                if Glibc.write(fd, base + range.lowerBound, range.count) != range.count { failed += 1 }
            }
        }
        return failed
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The raw fan-out's half of a run: the raw daemon, its subscriber processes and the changes to its namespace.
struct RawSide {
    let daemon: RawFanOut
    let set: WorkerSubscribers
    let writer: RequestWriter
    let interfaceIndex: Int32

    /// The raw daemon and its subscribers: worker processes laid out as pathmond's (`perProcess` each), connected
    /// to a listener in `directory` that the bench accepts on, as pathmond's connect to pathmond. Its namespace (the
    /// bench's peer) gets `default dev veth1`, so that it starts like pathmond's and the first change removes it.
    init(in namespace: BenchNamespace, directory: String, subscribers: Int, perProcess: Int) throws(BenchError) {
        let listener = try RawFanOutListener(path: directory + "/raw-fan-out")
        var writeEnds: [Int32] = []
        do {
            set = try WorkerSubscribers(
                kind: .raw, socketPath: listener.path, total: subscribers, perProcess: perProcess
            ) { (share: Int) throws(BenchError) in
                // A worker connects one after another, so the accepted order is its order.
                for _ in 0..<share { writeEnds.append(try listener.accept()) }
            }
        } catch {
            for fd in writeEnds { close(fd) }
            throw error
        }
        do {
            daemon = try RawFanOut(in: namespace, writeEnds: writeEnds)
        } catch {
            for fd in writeEnds { close(fd) }
            set.stop()
            throw error
        }
        do {
            writer = try namespace.entered(peer: true) { () throws(BenchError) in try RequestWriter() }
        } catch {
            daemon.stop()
            set.stop()
            throw error
        }
        interfaceIndex = namespace.peerInterfaceIndex
        do {
            try writer.perform(.defaultRoute(add: true, index: interfaceIndex))
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the daemon before its subscribers: no write(2) outlives their ends.
    func stop() {
        daemon.stop()
        set.stop()
    }
}

/// The raw daemon's listening Unix socket, for as long as its subscribers connect; closed and unlinked after.
final class RawFanOutListener {
    let path: String
    private let fd: Int32

    init(path: String) throws(BenchError) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket(AF_UNIX)", errno) }
        unlink(path)
        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            throw .setup("not a socket path: \(path)")
        }
        guard address.withSocketAddress({ bind(fd, $0, $1) }) == 0, listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            throw .system("bind/listen(\(path))", code)
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next connection's descriptor (close-on-exec: the next worker must not inherit it), within 30 s.
    func accept() throws(BenchError) -> Int32 {
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 30_000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw .setup("no raw fan-out subscriber connected within 30 s") }
            let accepted = Glibc.accept(fd, nil, nil)
            if accepted >= 0 {
                // Workers are started by this thread only, after this returns: no spawn can race the flag.
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                return accepted
            }
            if errno != EINTR { throw .system("accept", errno) }
        }
    }
}

extension FanOutRun {
    /// One change in the raw daemon's namespace, timed as pathmond's are: t0 just before the send, each read end's
    /// first wake-up stamped by a `SubscriberSet`. `timer` calls pathmond's GetPath while the change fans out.
    func measureRaw(
        _ side: RawSide, removes: Bool, replies: [[UInt8]]?, isMeasured: Bool, timer: GetPathTimer,
        into raw: inout FanOutResult.Raw
    ) throws(BenchError) {
        if let replies {
            side.daemon.setReplies(added: !removes, RawFanOut.Replies(replies))
            if isMeasured, let smallest = replies.map(\.count).min(), let largest = replies.map(\.count).max() {
                let sizes = raw.replySizes ?? smallest...largest
                raw.replySizes = min(sizes.lowerBound, smallest)...max(sizes.upperBound, largest)
            }
        }
        usleep(pauseMicroseconds)
        let request = KernelRequest.defaultRoute(add: !removes, index: side.interfaceIndex)
        let message = side.writer.prepare(request)
        let leftovers = try side.set.arm(deadline: monotonicNanoseconds() + timeoutNanoseconds)
        timer.setPhase(isMeasured ? .rawFanOut : .paused)
        let t0 = monotonicNanoseconds()
        try side.writer.send(message)
        try side.writer.awaitAcknowledgement(for: request)
        let arrivals = try side.set.awaitAll()
        timer.setPhase(.paused)
        let expected = expected(removed: removes)
        let drained = try side.set.drain(frames: .none, expected: expected)
        let loops = side.daemon.takeWriteLoops()
        guard isMeasured else { return }
        raw.arrivals.record(
            t0: t0, arrivals: arrivals, leftovers: leftovers, wrongContent: drained.wrongContent,
            extraUpdates: drained.extraUpdates)
        raw.writeLoops += loops
    }

    /// What the raw daemon writes for a change: pathmond's own update for the same change, NUL included; one for
    /// every WatchPath subscriber (they all get the same), each flow's own for WatchFlow. Nil if none arrived.
    func rawReplies(from newest: [[UInt8]?]) -> [[UInt8]]? {
        guard let some = newest.lazy.compactMap({ $0 }).first else { return nil }
        switch kind {
        case .path: return [some + [0]]
        case .flow: return newest.map { ($0 ?? some) + [0] }
        }
    }

    /// The newest frames a drain of pathmond's subscribers brings back for `rawReplies`.
    var rawReplyFrames: WorkerCommand.FrameRequest { kind == .path ? .first : .each }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The raw fan-out's half of a run: the raw daemon, its subscribers' stamping and the changes to its namespace.
struct RawSide {
    let daemon: RawFanOut
    let set: SubscriberSet
    let writer: RequestWriter
    let interfaceIndex: Int32

    /// The raw daemon and its socketpairs; its namespace (the bench's peer) gets `default dev veth1`, so that it
    /// starts like pathmond's and the first change removes it.
    init(in namespace: BenchNamespace, subscribers: Int) throws(BenchError) {
        daemon = try RawFanOut(in: namespace, subscribers: subscribers)
        do {
            set = try SubscriberSet(sockets: daemon.readEnds)
            writer = try namespace.entered(peer: true) { () throws(BenchError) in try RequestWriter() }
        } catch {
            daemon.stop()
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

    /// Stops the daemon before the stamping: no write(2) outlives the read ends.
    func stop() {
        daemon.stop()
        set.stop()
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
        let leftovers = side.set.discardLeftovers()
        let request = KernelRequest.defaultRoute(add: !removes, index: side.interfaceIndex)
        let message = side.writer.prepare(request)
        side.set.arm()
        timer.setPhase(isMeasured ? .rawFanOut : .paused)
        let t0 = monotonicNanoseconds()
        try side.writer.send(message)
        try side.writer.awaitAcknowledgement(for: request)
        let stamps = side.set.awaitAll(deadline: t0 + timeoutNanoseconds)
        timer.setPhase(.paused)
        let frames = side.set.drain()
        let loops = side.daemon.takeWriteLoops()
        guard isMeasured else { return }
        raw.arrivals.record(
            t0: t0, stamps: stamps, frames: frames, leftovers: leftovers, expected: expected(removed: removes))
        raw.writeLoops += loops
    }

    /// What the raw daemon writes for a change: pathmond's own update for the same change, NUL included; one for
    /// every WatchPath subscriber (they all get the same), each flow's own for WatchFlow. Nil if none arrived.
    func rawReplies(from frames: [[[UInt8]]]) -> [[UInt8]]? {
        let newest = frames.map(\.last)
        guard let some = newest.lazy.compactMap({ $0 }).first else { return nil }
        switch kind {
        case .path: return [some + [0]]
        case .flow: return newest.map { ($0 ?? some) + [0] }
        }
    }
}

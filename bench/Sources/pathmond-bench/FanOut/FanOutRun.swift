// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// One kind of subscriber, measured: subscribe them all, make the changes, collect the stamps.
struct FanOutRun {
    enum Kind {
        case path
        case flow
    }

    var kind: Kind
    var subscribers: Int
    var count: Int
    var timeoutNanoseconds: UInt64
    var pauseMicroseconds: UInt32
    var getPathIntervalMicroseconds: UInt32
    /// How many subscribers one client process holds at most (pathmond's and the raw fan-out's alike).
    var subscribersPerProcess: Int
    /// Whether to measure the raw fan-out too: false when an earlier kind's run did (its figure is reused).
    var measuresRawFanOut: Bool
    private let warmup = 4

    /// The i-th subscriber's call: the system path, or a flow to its own remote address (off-link, so its viability
    /// follows the default route).
    func request(_ index: Int) -> String {
        switch kind {
        case .path:
            return VarlinkSocket.watchPathCall
        case .flow:
            return Self.flowCall(index)
        }
    }

    /// The i-th distinct flow's WatchFlow call: from veth0's address to a remote of its own, off-link.
    static func flowCall(_ index: Int) -> String {
        let remote = "10.200.\(index / 250).\(index % 250 + 1)"
        return #"{"method":"io.pathmond.WatchFlow","parameters":{"flow":{"interface":"veth0","#
            + #""localAddress":"10.77.0.1","remoteAddress":"\#(remote)"}},"more":true}"#
    }

    /// The look-ups pathmond asks for the flows `request(_:)` watches, asked in its namespace.
    private func flowLookups(in namespace: BenchNamespace) throws(BenchError) -> FlowLookups {
        let remotes = (0..<subscribers).map { index in [10, 200, UInt8(index / 250), UInt8(index % 250 + 1)] }
        return try FlowLookups(in: namespace, local: namespace.ipv4, remotes: remotes)
    }

    /// What a subscriber's update says once the default route is gone (removed) or back.
    func expected(removed: Bool) -> String {
        switch kind {
        case .path: return removed ? #""status":"unsatisfied""# : #""status":"satisfied""#
        case .flow: return removed ? #""isViable":false"# : #""isViable":true"#
        }
    }

    /// Makes the changes, alternating between pathmond's namespace and the raw fan-out's: each change to pathmond's
    /// default route is followed by the same change to the raw daemon's, with pathmond's update for it as the raw
    /// daemon's reply. Each side is idle while the other is measured (pathmond sees nothing of the peer namespace,
    /// the GetPath client pauses, the raw daemon sees nothing of pathmond's), and load drift hits both alike.
    func measure(in bench: BenchRun, writer: RequestWriter, raw: RawStamp) throws(BenchError) -> FanOutResult {
        let socketPath = bench.pathmond.socketPath
        let memoryBefore = ProcessSnapshot(pid: bench.pathmond.pid)
        let set = try WorkerSubscribers(
            kind: kind == .path ? .path : .flow, socketPath: socketPath, total: subscribers,
            perProcess: subscribersPerProcess)
        defer { set.stop() }
        let memoryAfter = ProcessSnapshot(pid: bench.pathmond.pid)
        let floor =
            measuresRawFanOut
            ? try RawSide(
                in: bench.namespace, directory: bench.directory, subscribers: subscribers,
                perProcess: subscribersPerProcess) : nil
        defer { floor?.stop() }
        let lookups = kind == .flow ? try flowLookups(in: bench.namespace) : nil
        let timer = GetPathTimer(socketPath: socketPath, intervalMicroseconds: getPathIntervalMicroseconds)
        var result = FanOutResult(kind: kind, subscribers: subscribers)
        result.processes = set.processes
        result.subscribeNanoseconds = set.subscribeNanoseconds
        if let memoryBefore, let memoryAfter {
            result.memoryPerSubscriber = (memoryAfter.anonymousKiB - memoryBefore.anonymousKiB) * 1024 / subscribers
        }
        let total = warmup + count + (warmup + count) % 2
        for index in 0..<total {
            let removes = index % 2 == 0
            let isMeasured = index >= warmup
            usleep(pauseMicroseconds)
            let request = KernelRequest.defaultRoute(add: !removes, index: bench.namespace.interfaceIndex)
            let message = writer.prepare(request)
            let leftovers = try set.arm(deadline: monotonicNanoseconds() + timeoutNanoseconds)
            timer.setPhase(.fanOut)
            let t0 = raw.arm(.defaultRoute(added: !removes))
            try writer.send(message)
            try writer.awaitAcknowledgement(for: request)
            let rawLatency = raw.awaitLatency(timeoutNanoseconds: timeoutNanoseconds)
            let arrivals = try set.awaitAll()
            timer.setPhase(.quiet)
            let expected = expected(removed: removes)
            let drained = try set.drain(frames: floor == nil ? .none : rawReplyFrames, expected: expected)
            if isMeasured {
                if let rawLatency { result.rawNetlink.append(rawLatency) }
                result.pathmond.record(
                    t0: t0, arrivals: arrivals, leftovers: leftovers, wrongContent: drained.wrongContent,
                    extraUpdates: drained.extraUpdates)
                if let lookups {
                    // Against the routes as the change left them, with nothing else running.
                    timer.setPhase(.paused)
                    let (nanoseconds, replies) = lookups.askAll()
                    result.lookups.append(nanoseconds)
                    result.missingLookupReplies += lookups.count - replies
                }
            }
            if let floor {
                timer.setPhase(.paused)
                try measureRaw(
                    floor, removes: removes, replies: rawReplies(from: drained.newest), isMeasured: isMeasured,
                    timer: timer, into: &result.raw)
                timer.setPhase(.quiet)
            }
        }
        if let floor {
            result.raw.failedWrites = floor.daemon.failedWrites
            result.raw.overflows = floor.daemon.overflows
        }
        let samples = timer.stop()
        result.getPathDuringFanOut = samples.duringFanOut
        if floor != nil { result.raw.getPathMeanwhile = samples.duringRawFanOut }
        result.getPathQuiet = samples.quiet
        result.getPathFailure = samples.failure
        return result
    }
}

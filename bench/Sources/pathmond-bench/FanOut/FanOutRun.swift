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
    private let warmup = 4

    struct Result {
        var kind: Kind
        var subscribers: Int
        var first: [UInt64] = []
        var last: [UInt64] = []
        var raw: [UInt64] = []
        var getPathDuringFanOut: [UInt64] = []
        var getPathQuiet: [UInt64] = []
        var misses = 0
        var wrongContent = 0
        var extraUpdates = 0
        var getPathFailure: String?

        func table() -> FigureTable {
            let name = kind == .path ? "WatchPath" : "WatchFlow (distinct remote addresses)"
            var table = FigureTable(title: "\(subscribers) \(name) subscribers", referenceName: "reference")
            let goal = kind == .path ? "≤ 5 ms" : "≤ 10 ms"
            table.addTime("last subscriber, p50 (ref: raw netlink)", nearestRank(last, 0.5), nearestRank(raw, 0.5))
            table.addTime(
                "last subscriber, p99 (ref: raw netlink)", nearestRank(last, 0.99), nearestRank(raw, 0.99), goal: goal)
            table.addTime("first subscriber, p50 (ref: raw netlink)", nearestRank(first, 0.5), nearestRank(raw, 0.5))
            table.addTime(
                "GetPath during fan-out, p50 (ref: quiet)", nearestRank(getPathDuringFanOut, 0.5),
                nearestRank(getPathQuiet, 0.5))
            table.addTime(
                "GetPath during fan-out, p99 (ref: quiet)", nearestRank(getPathDuringFanOut, 0.99),
                nearestRank(getPathQuiet, 0.99), goal: kind == .flow ? "≤ 1 ms" : "")
            table.note(
                "changes measured: \(last.count + misses), not every subscriber reached in time: \(misses), "
                    + "wrong content: \(wrongContent), extra updates: \(extraUpdates), "
                    + "GetPath calls: \(getPathDuringFanOut.count) during fan-out, \(getPathQuiet.count) quiet"
                    + (getPathFailure.map { ", GetPath failure: \($0)" } ?? ""))
            return table
        }
    }

    /// The i-th subscriber's call: the system path, or a flow to its own remote address (off-link, so its viability
    /// follows the default route).
    func request(_ index: Int) -> String {
        switch kind {
        case .path:
            return VarlinkSocket.watchPathCall
        case .flow:
            let remote = "10.200.\(index / 250).\(index % 250 + 1)"
            return #"{"method":"io.pathmond.WatchFlow","parameters":{"flow":{"interface":"veth0","#
                + #""localAddress":"10.77.0.1","remoteAddress":"\#(remote)"}},"more":true}"#
        }
    }

    /// What a subscriber's update says once the default route is gone (removed) or back.
    func expected(removed: Bool) -> String {
        switch kind {
        case .path: return removed ? #""status":"unsatisfied""# : #""status":"satisfied""#
        case .flow: return removed ? #""isViable":false"# : #""isViable":true"#
        }
    }

    func measure(in bench: BenchRun, writer: RequestWriter, raw: RawStamp) throws(BenchError) -> Result {
        let socketPath = bench.pathmond.socketPath
        let set = try SubscriberSet(socketPath: socketPath, requests: (0..<subscribers).map(request))
        defer { set.stop() }
        let timer = GetPathTimer(socketPath: socketPath, intervalMicroseconds: getPathIntervalMicroseconds)
        var result = Result(kind: kind, subscribers: subscribers)
        let total = warmup + count + (warmup + count) % 2
        for index in 0..<total {
            let removes = index % 2 == 0
            usleep(pauseMicroseconds)
            // Anything that arrived since the last change was not asked for.
            let leftovers = set.drain().reduce(0) { $0 + $1.count }
            let request = KernelRequest.defaultRoute(add: !removes, index: bench.namespace.interfaceIndex)
            let message = writer.prepare(request)
            set.arm()
            timer.setFanOut(true)
            let t0 = raw.arm(.defaultRoute(added: !removes))
            try writer.send(message)
            try writer.awaitAcknowledgement(for: request)
            let rawLatency = raw.awaitLatency(timeoutNanoseconds: timeoutNanoseconds)
            let stamps = set.awaitAll(deadline: t0 + timeoutNanoseconds)
            timer.setFanOut(false)
            let frames = set.drain()
            guard index >= warmup else { continue }
            result.extraUpdates += leftovers
            let arrived = stamps.filter { $0 != 0 }
            if let rawLatency { result.raw.append(rawLatency) }
            if arrived.count == stamps.count, let first = arrived.min(), let last = arrived.max() {
                // An update stamped before t0 was a leftover: it reads as 0 rather than wrapping around.
                result.first.append(first - min(first, t0))
                result.last.append(last - min(last, t0))
            } else {
                result.misses += 1
            }
            let needle = expected(removed: removes)
            for received in frames {
                if let newest = received.last, !newest.containsCompact(needle) { result.wrongContent += 1 }
                result.extraUpdates += max(0, received.count - 1)
            }
        }
        let samples = timer.stop()
        result.getPathDuringFanOut = samples.duringFanOut
        result.getPathQuiet = samples.quiet
        result.getPathFailure = samples.failure
        return result
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// CPU per path flip: `default dev veth0` deleted and re-added `count` times, each alone (`gapMicroseconds` apart,
/// acknowledged), with one WatchPath subscriber reading every update, so that pathmond reads the event, evaluates,
/// encodes and writes. Every listener in the probe hears the same events; each one's CPU time is the difference
/// between snapshots taken once all are settled. Used by `storm` and `table`.
struct PathFlips {
    var count: Int
    var gapMicroseconds: UInt32

    struct Result {
        /// CPU time per flip of each of the probe's processes, in its order, in nanoseconds.
        var cpuPerFlip: [UInt64]
        /// Updates the subscriber did not get within 2 s.
        var missed: Int
    }

    func measure(in bench: BenchRun, probe: StormProbe) throws(BenchError) -> Result {
        let flips = count + count % 2  // even: the route is back when it ends
        let writer = try bench.requestWriter()
        let subscriber = try VarlinkSocket(path: bench.pathmond.socketPath)
        _ = try subscriber.call(VarlinkSocket.watchPathCall)
        try probe.settle()
        let before = try probe.snapshots()
        var missed = 0
        for index in 0..<flips {
            try writer.perform(.defaultRoute(add: index % 2 == 1, index: bench.namespace.interfaceIndex))
            if subscriber.receive(timeoutMilliseconds: 2000) == nil { missed += 1 }
            usleep(gapMicroseconds)
        }
        try probe.settle()
        let after = try probe.snapshots()
        return Result(cpuPerFlip: probe.perEvent(before, after, flips), missed: missed)
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// Makes the changes one at a time and collects both observers' latencies.
struct Runner {
    var writer: RequestWriter
    var probe: Probe
    var topology: Topology
    var warmup: Int
    var count: Int
    var timeoutNanoseconds: UInt64
    /// Quiet time before each change: 0 runs them back to back, while the threads are still warm; more lets
    /// every thread park and the CPUs idle, as before a real change on a quiet machine.
    var pauseMicroseconds: UInt32

    /// How long a restore may take to show as a satisfied path: carrier after link up can lag (linkwatch).
    private let settleNanoseconds: UInt64 = 3_000_000_000

    /// Runs warm-up and measured changes of one kind; the path is satisfied before and after.
    func run(_ kind: ChangeKind) throws(BenchError) -> KindSamples {
        var samples = KindSamples()
        let total = warmup + count
        let second = kind == .uplink ? topology.second : nil
        try second?.create()
        let preparing = kind.preparing(on: topology)
        for request in preparing { try writer.perform(request) }
        if !preparing.isEmpty { try settle(kind.settled(on: topology), after: preparing.last) }
        for i in 0..<total {
            let change = kind.change(i, on: topology)
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
            let message = writer.prepare(change.request)
            _ = probe.arm(raw: change.raw, path: change.path)
            try writer.send(message)
            try writer.awaitAcknowledgement(for: change.request)
            let observation = probe.awaitObservation(timeoutNanoseconds: timeoutNanoseconds)
            probe.disarm()
            if i >= warmup { samples.record(observation) }
            // After a miss the path may still be on its way; wait for it so the next change starts clean.
            if observation.subscriber == nil { try settle(change.path, after: change.request) }
            for request in change.restore { try writer.perform(request) }
            if !change.restore.isEmpty { try settle(kind.settled(on: topology), after: change.request) }
        }
        for request in kind.finishing(after: total, on: topology) { try writer.perform(request) }
        try second?.delete()
        try settle(kind.settled(on: topology), after: nil)
        return samples
    }

    /// Waits for the path the bench is about to build on; starting the next change early would blur figures.
    func settle(_ expected: PathMatch, after request: KernelRequest?) throws(BenchError) {
        guard probe.awaitPath(expected, timeoutNanoseconds: settleNanoseconds) else {
            let seen = probe.lastPath.map {
                PathMatch(
                    status: $0.status, reason: $0.unsatisfiedReason, firstInterface: $0.availableInterfaces.first?.index
                ).description
            }
            throw .setup(
                "the path did not become \(expected)\(request.map { " after \($0.summary)" } ?? "") "
                    + "(last seen: \(seen ?? "none")); is pathmond running in this namespace?")
        }
    }
}

extension Runner {
    /// Measures `kinds` in turn with the three observers: `listener` (opened where the changes are made, by the
    /// caller), a client-library subscriber of `socketPath` and one reading that socket itself. None hears anything
    /// once this returns.
    func report(_ kinds: [ChangeKind], listener: RawListener, socketPath: String) throws(BenchError) -> Report {
        listener.start()
        defer { listener.stop() }
        let subscriber = SubscriberObserver(socketPath: socketPath, probe: probe)
        subscriber.start()
        defer { subscriber.cancel() }
        let wire = WireObserver(socketPath: socketPath, probe: probe)
        try wire.start()
        defer { wire.stop() }
        try settle(.satisfied, after: nil)
        var all = KindSamples()
        var summaries: [KindSummary] = []
        for kind in kinds {
            let samples = try run(kind)
            all.merge(samples)
            summaries.append(KindSummary(kind.rawValue, samples))
        }
        return Report(
            changesPerKind: count, warmup: warmup, pauseMicros: pauseMicroseconds, kinds: summaries,
            overall: KindSummary("overall", all), extraUpdates: probe.extraUpdates, rawOverflows: probe.overflows)
    }
}

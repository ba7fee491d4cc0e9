// SPDX-License-Identifier: Apache-2.0
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// What root gets from pathmond over a period: route changes delivered to a WatchPath subscriber (with a raw netlink
/// listener's time as the kernel's own), `pathctl status` timed on another thread, RSS and log lines.
final class ServiceSession {
    struct Figures {
        var delivery: [UInt64] = []
        var raw: [UInt64] = []
        var misses = 0
        var statusTimes: [UInt64] = []
        var statusFailures = 0
        var peakResidentKiB = 0
        var logLinesPerMinute = 0.0
        var logSample: [String] = []

        var statusMax: UInt64? { statusTimes.max() }
    }

    private let namespace: BenchNamespace
    private let pathmond: DaemonProcess
    private let pathctl: String
    private let changeInterval: UInt32
    private let statusInterval: UInt32
    private let writer: RequestWriter
    private let raw: RawStamp
    private let subscriber: SubscriberSet
    private var removed = false

    init(bench: BenchRun, pathctl: String, changeInterval: UInt32, statusInterval: UInt32) throws(BenchError) {
        namespace = bench.namespace
        pathmond = bench.pathmond
        self.pathctl = pathctl
        self.changeInterval = changeInterval
        self.statusInterval = statusInterval
        writer = try bench.requestWriter()
        raw = try RawStamp(in: namespace)
        subscriber = try SubscriberSet(socketPath: pathmond.socketPath, requests: [VarlinkSocket.watchPathCall])
    }

    deinit {
        subscriber.stop()
    }

    func measure(seconds: Int) throws(BenchError) -> Figures {
        var figures = Figures()
        let logBefore = pathmond.logLines.count
        let start = monotonicNanoseconds()
        let end = start + UInt64(seconds) * 1_000_000_000
        let statusTimer = StatusTimer(
            pathctl: pathctl, socketPath: pathmond.socketPath, interval: statusInterval, until: end)
        while monotonicNanoseconds() < end {
            usleep(changeInterval * 1000)
            _ = subscriber.drain()
            removed.toggle()
            let request = KernelRequest.defaultRoute(add: !removed, index: namespace.interfaceIndex)
            let message = writer.prepare(request)
            subscriber.arm()
            let t0 = raw.arm(.defaultRoute(added: !removed))
            try writer.send(message)
            try writer.awaitAcknowledgement(for: request)
            let stamps = subscriber.awaitAll(deadline: t0 + 1_000_000_000)
            if let latency = raw.awaitLatency(timeoutNanoseconds: 1_000_000_000) { figures.raw.append(latency) }
            if let stamp = stamps.first, stamp != 0 {
                figures.delivery.append(stamp - min(stamp, t0))
            } else {
                figures.misses += 1
            }
            if let snapshot = ProcessSnapshot(pid: pathmond.pid) {
                figures.peakResidentKiB = max(figures.peakResidentKiB, snapshot.residentKiB)
            }
        }
        let status = statusTimer.finish()
        figures.statusTimes = status.times
        figures.statusFailures = status.failures
        let lines = pathmond.logLines
        // The path changes are this bench's own doing; what is left is what the daemon said about its clients.
        let added = lines.dropFirst(logBefore).filter { !$0.contains("path changed") }
        figures.logLinesPerMinute = Double(added.count) * 60 / (Double(monotonicNanoseconds() - start) / 1e9)
        figures.logSample = added.prefix(5).map { String($0.prefix(200)) }
        // Leave the path satisfied for whatever comes next.
        if removed {
            removed = false
            try writer.perform(.defaultRoute(add: true, index: namespace.interfaceIndex))
        }
        return figures
    }
}

/// Runs `pathctl status` as root every `interval` ms on its own thread and times each run; a run that has not
/// finished after 10 s is killed and counted as a failure.
final class StatusTimer: Sendable {
    private struct State {
        var times: [UInt64] = []
        var failures = 0
        var done = false
    }

    private let state = Locked(State())

    init(pathctl: String, socketPath: String, interval: UInt32, until end: UInt64) {
        startThread { [self] in
            while monotonicNanoseconds() < end {
                let start = monotonicNanoseconds()
                let outcome = Self.time(pathctl: pathctl, socketPath: socketPath, limit: 10_000_000_000)
                state.withLock { state in
                    if let outcome { state.times.append(outcome) } else { state.failures += 1 }
                }
                let elapsed = monotonicNanoseconds() - start
                if elapsed < UInt64(interval) * 1_000_000 {
                    usleep(UInt32((UInt64(interval) * 1_000_000 - elapsed) / 1000))
                }
            }
            state.withLock { $0.done = true }
        }
    }

    /// Runs `pathctl status` once; its wall time if it succeeded within `limit` nanoseconds (else it is killed).
    static func time(pathctl: String, socketPath: String, limit: UInt64) -> UInt64? {
        let start = monotonicNanoseconds()
        guard let child = try? Child([pathctl, "status", "--socket", socketPath], output: .null, error: .null) else {
            return nil
        }
        while child.isRunning && monotonicNanoseconds() - start < limit { usleep(1000) }
        if child.isRunning { child.stop(grace: 0) }
        return child.wait() == 0 ? monotonicNanoseconds() - start : nil
    }

    /// Waits for the loop to end; the times of answered runs and the count of failed ones.
    func finish() -> (times: [UInt64], failures: Int) {
        while !state.withLock({ $0.done }) { usleep(10_000) }
        return state.withLock { ($0.times, $0.failures) }
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Subscribers spread over client processes of their own (`fan-out-worker`, this binary run again), at most
/// `perProcess` each: what the bench's `SubscriberSet` did in one process, with the same stamping in each worker and
/// the figures merged here. pathmond's subscribers and the raw fan-out's are laid out alike, so neither side pays
/// for more processes than the other.
final class WorkerSubscribers {
    private let workers: [(child: Child, channel: LineChannel)]
    let count: Int
    /// The workers' own time to connect (and subscribe) their share, added up: they start one after another.
    let subscribeNanoseconds: UInt64

    var processes: Int { workers.count }

    /// How `total` subscribers split over processes of at most `perProcess`: as evenly as can be.
    static func shares(_ total: Int, perProcess: Int) -> [Int] {
        let processes = max(1, (total + perProcess - 1) / perProcess)
        return (0..<processes).map { total / processes + ($0 < total % processes ? 1 : 0) }
    }

    /// Starts the workers one after another, each once the one before is ready. `connected` runs after each start
    /// with its share, before its readiness is awaited: the raw fan-out accepts that worker's connections there, in
    /// the order they were made.
    init(
        kind: SubscriberWorker.Kind, socketPath: String, total: Int, perProcess: Int,
        connected: (Int) throws(BenchError) -> Void = { _ in }
    ) throws(BenchError) {
        // A worker that died must not take the bench with it: its pipe's end reads as a failure instead.
        signal(SIGPIPE, SIG_IGN)
        var workers: [(child: Child, channel: LineChannel)] = []
        var first = 0
        var subscribing: UInt64 = 0
        func stopAll() {
            for worker in workers { Self.stop(worker.child) }
        }
        for share in Self.shares(total, perProcess: perProcess) {
            let child: Child
            do {
                child = try Child(
                    [
                        "/proc/self/exe", "fan-out-worker", "--socket", socketPath, "--kind", kind.rawValue,
                        "--first", "\(first)", "--count", "\(share)",
                    ], output: .pipe, pipesInput: true)
            } catch {
                stopAll()
                throw error
            }
            // Non-nil: both pipes were asked for.
            let channel = LineChannel(input: child.outputPipe!, output: child.inputPipe!)
            workers.append((child, channel))
            do throws(BenchError) {
                try connected(share)
                switch channel.readLine().flatMap(WorkerReply.init(line:)) {
                case .ready(let nanoseconds): subscribing += nanoseconds
                case .failed(let message): throw BenchError.setup("fan-out worker: \(message)")
                default: throw BenchError.setup("fan-out worker \(child.pid) ended or answered nonsense while starting")
                }
            } catch {
                stopAll()
                throw error
            }
            first += share
        }
        self.workers = workers
        count = total
        subscribeNanoseconds = subscribing
    }

    /// Counts and throws away what arrived since the last change, then arms every worker's stamping, which ends when
    /// every subscriber was woken or at `deadline` (monotonic); the leftovers.
    func arm(deadline: UInt64) throws(BenchError) -> Int {
        let command = WorkerCommand.arm(deadline: deadline).line
        for worker in workers where !worker.channel.write(command) { throw gone(worker.child) }
        var leftovers = 0
        for worker in workers {
            guard case .armed(let count) = try reply(worker) else { throw nonsense(worker.child) }
            leftovers += count
        }
        return leftovers
    }

    /// Every worker's stamps of the change armed last, as one set.
    func awaitAll() throws(BenchError) -> WorkerArrivals {
        var all = WorkerArrivals()
        for worker in workers {
            guard case .stamps(let arrivals) = try reply(worker) else { throw nonsense(worker.child) }
            all = all.merged(with: arrivals)
        }
        return all
    }

    /// Reads every subscriber: updates whose newest frame lacks `expected`, updates past one per subscriber, and the
    /// newest frames `frames` asks for (`.first`: one, the first subscriber's that has one).
    func drain(frames request: WorkerCommand.FrameRequest, expected: String) throws(BenchError) -> (
        wrongContent: Int, extraUpdates: Int, newest: [[UInt8]?]
    ) {
        let command = WorkerCommand.drain(frames: request, expected: expected).line
        for worker in workers where !worker.channel.write(command) { throw gone(worker.child) }
        var (wrong, extra) = (0, 0)
        var newest: [[UInt8]?] = []
        for worker in workers {
            guard case .drained(let workerWrong, let workerExtra, let frames) = try reply(worker) else {
                throw nonsense(worker.child)
            }
            wrong += workerWrong
            extra += workerExtra
            for _ in 0..<frames {
                guard let line = worker.channel.readLine() else { throw gone(worker.child) }
                newest.append(FrameLine.decode(line))
            }
        }
        if request == .first { newest = [newest.lazy.compactMap { $0 }.first] }
        return (wrong, extra, newest)
    }

    /// Ends every worker: end of input, then the signal if it lingers.
    func stop() {
        for worker in workers { Self.stop(worker.child) }
    }

    private static func stop(_ child: Child) {
        if let input = child.inputPipe { shutdownInput(input) }
        child.stop(grace: 2)
    }

    /// Closing our end of the worker's stdin is its end of input; `Child` closes the descriptor again in deinit, so
    /// it is replaced by /dev/null rather than freed for reuse.
    private static func shutdownInput(_ fd: Int32) {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 {
            dup2(null, fd)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            close(null)
        }
    }

    private func reply(_ worker: (child: Child, channel: LineChannel)) throws(BenchError) -> WorkerReply {
        guard let line = worker.channel.readLine() else { throw gone(worker.child) }
        guard let reply = WorkerReply(line: line) else { throw nonsense(worker.child) }
        if case .failed(let message) = reply { throw BenchError.setup("fan-out worker: \(message)") }
        return reply
    }

    private func gone(_ child: Child) -> BenchError { .setup("fan-out worker \(child.pid) is gone") }
    private func nonsense(_ child: Child) -> BenchError { .setup("fan-out worker \(child.pid) answered nonsense") }
}

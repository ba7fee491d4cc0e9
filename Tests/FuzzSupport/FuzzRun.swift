// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// What one fuzz run did, for the test to check and print.
public struct FuzzReport: Sendable, CustomStringConvertible {
    /// The parser's name, as in the test and the trap dump's file name.
    public var name: String
    /// How many inputs went through the parser.
    public var count: Int
    /// Wall-clock seconds for the whole run (printed, never asserted: speed is for bench/).
    public var seconds: Double
    /// The slowest single input, in milliseconds.
    public var slowestMilliseconds: Double
    /// How much the process's peak resident memory grew during the run, in KiB.
    public var peakMemoryGrowthKiB: Int
    /// How many inputs the parser accepted (returned true for); a fuzzer that never gets past the first check
    /// tests little, so tests require some of each.
    public var accepted: Int

    public var description: String {
        let rate = seconds > 0 ? Int(Double(count) / seconds) : count
        return "fuzz \(name): \(count) inputs in \(formatted(seconds)) s (\(rate)/s), \(accepted) accepted, "
            + "slowest \(formatted(slowestMilliseconds)) ms, peak memory +\(peakMemoryGrowthKiB / 1024) MiB"
    }

    private func formatted(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

/// Runs a parser over many mutated inputs. A trap cannot be caught, so before each input its bytes are copied
/// where a signal handler can reach them: if the parser traps (SIGILL on Linux), crashes or aborts, the handler
/// writes the input to /tmp/fuzz-trap-NAME.bin and says so on stderr before the process dies, and that file
/// replays the failure.
public enum Fuzz {
    /// Passes `count` inputs from `mutator` to `body`; `body` returns whether the parser accepted the input.
    public static func run(
        _ name: String, count: Int, mutator: Mutator, _ body: ([UInt8]) -> Bool
    ) -> FuzzReport {
        // One run at a time, even if a test runner runs tests in parallel: the trap dump has one slot.
        runLock.lock()
        defer { runLock.unlock() }
        var mutator = mutator
        TrapDump.install(name: name, capacity: mutator.maximumLength)
        defer { TrapDump.uninstall() }
        let startMemory = peakMemoryKiB()
        let start = monotonicSeconds()
        var slowest = 0.0
        var accepted = 0
        for _ in 0..<count {
            let input = mutator.next()
            TrapDump.record(input)
            let before = monotonicSeconds()
            if body(input) { accepted += 1 }
            slowest = max(slowest, monotonicSeconds() - before)
        }
        let report = FuzzReport(
            name: name, count: count, seconds: monotonicSeconds() - start, slowestMilliseconds: slowest * 1000,
            peakMemoryGrowthKiB: peakMemoryKiB() - startMemory, accepted: accepted)
        print(report)
        return report
    }

    private static let runLock = RunLock()

    /// The bound the fuzz tests hold every parser to: far above what any of them needs for a 4 KiB input, far
    /// below what a parser that buffers without limit (a symlink to /dev/zero, a huge repeat count) would take.
    public static let memoryBoundKiB = 256 * 1024

    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func peakMemoryKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}

/// The input being parsed, kept where a signal handler may read it (async-signal-safe: plain memory, open and
/// write only). Fuzz runs are sequential (`--no-parallel`, and one run per test), so one slot suffices.
enum TrapDump {
    nonisolated(unsafe) private static var buffer: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var length = 0
    nonisolated(unsafe) private static var capacity = 0
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    private static let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE]

    static func install(name: String, capacity: Int) {
        buffer = .allocate(capacity: max(capacity, 1))
        Self.capacity = max(capacity, 1)
        length = 0
        path = strdup("/tmp/fuzz-trap-\(name).bin")
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                TrapDump.dump()
                // Die of the same signal, so the test runner reports what happened.
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigaction(signal, &action, nil)
        }
    }

    static func uninstall() {
        for signal in signals { Glibc.signal(signal, SIG_DFL) }
        buffer?.deallocate()
        free(path)
        buffer = nil
        path = nil
    }

    static func record(_ input: [UInt8]) {
        guard let buffer else { return }
        length = min(input.count, capacity)
        input.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.update(from: base, count: length) }
        }
    }

    private static func dump() {
        guard let buffer, let path else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
            _ = write(descriptor, buffer, length)
            close(descriptor)
        }
        let message = "\nfuzz: the parser trapped; the input is in "
        _ = message.withCString { write(2, $0, strlen($0)) }
        _ = write(2, path, strlen(path))
        _ = write(2, "\n", 1)
    }
}

/// A plain mutex around a whole fuzz run (Mutex.withLock would have to capture the parser's non-Sendable body).
final class RunLock: @unchecked Sendable {
    // @unchecked: the pthread mutex is only touched through lock() and unlock(), which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

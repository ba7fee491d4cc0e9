// SPDX-License-Identifier: Apache-2.0
import Glibc
import Locking
import SDEvent
import Synchronization
import Testing

@Suite struct SDEventLoopTests {
    @Test func jobsFromOtherThreadsRunOnTheLoopInOrder() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-jobs")
        defer { loop.exit() }
        let seen = Locked<[Int]>([])
        for value in 0..<100 {
            loop.execute {
                precondition(loop.inLoop)
                seen.withLock { $0.append(value) }
            }
        }
        // `sync` queues behind them: when it returns, they all ran.
        #expect(loop.sync { loop.inLoop })
        #expect(seen.withLock { $0 } == Array(0..<100))
        #expect(!loop.inLoop)
    }

    @Test func readableDescriptorCallsItsHandlerUntilDrained() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-io")
        defer { loop.exit() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        defer { close(ends[0]); close(ends[1]) }
        let received = Locked<[UInt8]>([])
        let reader = ends[0]
        let source = loop.sync {
            UncheckedTransfer(
                try? loop.watchReadable(reader) {
                    var byte: UInt8 = 0
                    while read(reader, &byte, 1) == 1 { received.withLock { $0.append(byte) } }
                })
        }
        #expect(source.value != nil)
        for byte: UInt8 in [1, 2, 3] {
            var value = byte
            #expect(write(ends[1], &value, 1) == 1)
        }
        #expect(waitUntil { received.withLock { $0 } == [1, 2, 3] })
        loop.sync { source.value?.cancel() }
    }

    @Test func scheduledJobFiresOnceAfterItsDelayAndCancelledOneNever() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-timer")
        defer { loop.exit() }
        let fired = Locked<[String]>([])
        let sources = loop.sync {
            UncheckedTransfer([
                try? loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("kept") } },
                try? loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("cancelled") } },
            ])
        }
        loop.sync { sources.value[1]?.cancel() }
        #expect(waitUntil { fired.withLock { $0 } == ["kept"] })
        usleep(50_000)
        #expect(fired.withLock { $0 } == ["kept"])
        withExtendedLifetime(sources) {}
    }

    @Test func signalArrivesThroughTheLoop() throws {
        // SIGUSR2 is blocked in this thread before the loop's thread starts, so that thread inherits the mask (as
        // the daemon blocks its signals before it starts any thread).
        SDEventLoop.blockSignals([SIGUSR2])
        let loop = try SDEventLoop.startedOnNewThread(name: "test-signal")
        defer { loop.exit() }
        let count = Atomic<Int>(0)
        let source = loop.sync {
            UncheckedTransfer(try? loop.onSignal(SIGUSR2) { count.add(1, ordering: .relaxed) })
        }
        #expect(source.value != nil)
        // To the loop's thread, which blocks it: another thread of the test process might not, and would die of it.
        let thread = loop.sync { pthread_self() }
        #expect(pthread_kill(thread, SIGUSR2) == 0)
        #expect(waitUntil { count.load(ordering: .relaxed) == 1 })
        loop.sync { source.value?.cancel() }
    }

    @Test func exitEndsRunWithItsCode() throws {
        let loop = try SDEventLoop()
        loop.execute { loop.exit(code: 7) }
        #expect(loop.run() == 7)
        // Not running any more: a sync job runs on the caller's thread instead of waiting forever.
        #expect(loop.sync { 42 } == 42)
    }
}

/// Polls `condition` for up to 5 s: for effects that happen on the loop's thread.
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

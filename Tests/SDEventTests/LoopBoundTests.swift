// SPDX-License-Identifier: Apache-2.0
import SDEvent
import Testing

/// The loop affinity that the daemon's former `@unchecked Sendable` types now rest on: the value is its creator's
/// until the loop runs, then the loop thread's alone; a touch from any other thread fails the check and traps.
@Suite struct LoopBoundTests {
    @Test func theCreatorSetsItUpBeforeTheLoopRuns() throws {
        let bound = LoopBound([1], on: try SDEventLoop())
        bound.value.append(2)
        #expect(bound.value == [1, 2])
    }

    @Test func theLoopsThreadReadsAndChangesItWhileItRuns() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-bound")
        defer { loop.exit() }
        let bound = LoopBound(0, on: loop)
        let seen = loop.sync {
            bound.value += 1
            return bound.value
        }
        #expect(seen == 1)
    }

    /// What the value's accessors check (a precondition, so a failed check traps): false on any other thread once the
    /// loop runs. (An exit test would show the trap itself, but its child hangs the suite's serial run whenever a
    /// test leaves a child process unreaped: Swift Testing's waiter spins on that one.)
    @Test func anotherThreadMayNotTouchItWhileTheLoopRuns() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-bound")
        defer { loop.exit() }
        #expect(loop.sync { loop.isOwnedByCaller })
        #expect(!loop.isOwnedByCaller)
    }
}

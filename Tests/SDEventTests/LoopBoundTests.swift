// SPDX-License-Identifier: Apache-2.0
import SDEvent
import Testing

/// The loop affinity that the daemon's former `@unchecked Sendable` types now rest on: the value is its creator's
/// until the loop runs, then the loop thread's alone; a touch from any other thread traps.
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

    @Test func anotherThreadTouchingItWhileTheLoopRunsTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = try SDEventLoop.startedOnNewThread(name: "test-bound")
            let bound = LoopBound(0, on: loop)
            _ = loop.sync { bound.value }  // The loop runs now: this thread is not its owner any more.
            bound.value += 1
        }
    }
}

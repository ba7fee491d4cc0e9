// SPDX-License-Identifier: Apache-2.0
import SDEvent
import Testing

@testable import pathmond

/// The hooks run after the hub's updates fire once per path change, for the daemon's life. An action once sat
/// behind the lock as a closure value and came back two reabstraction thunks deeper on every fire: after a few
/// thousand changes each call went through a chain of thousands of thunks, and a long-running daemon would have
/// overflowed its stack. A hundred thousand fires must stay one call each.
@Suite struct HubUpdatesTests {
    @Test func firingManyTimesStaysOneCall() {
        let updates = HubUpdates()
        let first = Counter()
        let second = Counter()
        updates.add { first.add() }
        updates.add { second.add() }
        for _ in 0..<100_000 { updates() }
        #expect(first.value == 100_000 && second.value == 100_000)
    }

    /// A loop-bound action runs on its loop: queued from another thread (here, before the loop runs), and run
    /// there once the loop turns.
    @Test func aLoopBoundActionRunsOnItsLoop() throws {
        let loop = try SDEventLoop()
        let updates = HubUpdates()
        var calls = 0
        var onLoop = false
        updates.add(on: loop) {
            calls += 1
            onLoop = loop.inLoop
            loop.exit()
        }
        updates()
        #expect(calls == 0, "ran off its loop")
        loop.run()
        #expect(calls == 1 && onLoop)
    }

    @Test func loopHooksRunEveryActionInOrder() {
        let hook = LoopHook()
        var calls: [String] = []
        hook.add { calls.append("a") }
        hook.add { calls.append("b") }
        hook()
        hook()
        #expect(calls == ["a", "b", "a", "b"])
    }

    final class Counter: @unchecked Sendable {
        // @unchecked: touched by this test's one thread only.
        private(set) var value = 0
        func add() { value += 1 }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

/// The relay from the hub's updates to the hints service fires once per path change, for the daemon's life. Its
/// action once sat behind the lock as a closure value and came back two reabstraction thunks deeper on every
/// fire: after a few thousand changes each call went through a chain of thousands of thunks, and a long-running
/// daemon would have overflowed its stack. A hundred thousand fires must stay one call each.
@Suite struct PathChangeRelayTests {
    @Test func firingManyTimesStaysOneCall() {
        let relay = PathChangeRelay()
        let count = Counter()
        relay.connect { count.add() }
        for _ in 0..<100_000 { relay.fire() }
        #expect(count.value == 100_000)
    }

    final class Counter: @unchecked Sendable {
        // @unchecked: touched by this test's one thread only.
        private(set) var value = 0
        func add() { value += 1 }
    }
}

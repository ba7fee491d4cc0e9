// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

#if canImport(Glibc)
    import Glibc
#endif

/// What `monitor`, `wait` and `exec` block on instead of Dispatch (Locking's `WakeUp` under it): events in the
/// order posted, each taken once, a post from another thread waking a wait, and a wait that times out with none.
@Suite struct EventQueueTests {
    @Test func eventsPostedBeforeTheWaitAreTakenInOrderOnceEach() {
        let queue = EventQueue<Int>()
        for event in 1...3 { queue.post(event) }
        #expect(queue.next(within: .zero) == 1)
        #expect(queue.next(within: .zero) == 2)
        #expect(queue.next() == 3)
        #expect(queue.next(within: .milliseconds(20)) == nil)
    }

    @Test func aPostFromAnotherThreadWakesAWaitForEver() {
        let queue = EventQueue<String>()
        var thread = pthread_t()
        let box = Unmanaged.passRetained(queue).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let queue = Unmanaged<EventQueue<String>>.fromOpaque(context!).takeRetainedValue()
                usleep(20_000)
                queue.post("late")
                return nil
            }, box)
        #expect(queue.next() == "late")
        pthread_join(thread, nil)
    }

    @Test func aWaitWithoutEventsEndsAtItsTimeout() {
        let queue = EventQueue<Int>()
        #expect(queue.next(within: .milliseconds(30)) == nil)
        #expect(queue.next(within: .seconds(-1)) == nil)
        queue.post(7)
        #expect(queue.next(within: .seconds(3_000_000_000)) == 7)
    }
}

// SPDX-License-Identifier: Apache-2.0
import SDEvent
import Synchronization

/// A bus watcher's mutable state, loop-bound (checked) from the moment a `SystemBusWatch` takes the watcher: the
/// watcher is made before the loop it runs on is known (a `SystemBusWatch` may start a loop of its own), and every
/// use comes after, on that loop (`attach`, `detach`, signal handlers and replies, and the daemon's calls there).
///
/// @unchecked Sendable: `initial` is never changed, and `bound` is set once, atomically.
final class BusWatcherState<State>: @unchecked Sendable {
    private let initial: State
    private let bound = AtomicLazyReference<LoopBound<State>>()

    init(_ initial: State) {
        self.initial = initial
    }

    /// Binds the state to `loop`, once: a watcher follows one `SystemBusWatch`.
    func bind(to loop: SDEventLoop) {
        let state = bound.storeIfNil(LoopBound(initial, on: loop))
        precondition(state.loop === loop, "a bus watcher is taken by one SystemBusWatch, on one loop")
    }

    /// The state; only on the loop's thread, once a `SystemBusWatch` has taken the watcher.
    var value: State {
        _read { yield loopBound.value }
        _modify { yield &loopBound.value }
    }

    /// The loop the state is bound to (its timers run there).
    var loop: SDEventLoop { loopBound.loop }

    private var loopBound: LoopBound<State> {
        guard let state = bound.load() else {
            preconditionFailure("a bus watcher used before a SystemBusWatch took it")
        }
        return state
    }
}

// SPDX-License-Identifier: Apache-2.0
import Locking
import SDEvent

/// Actions a part runs on the main loop when something of its own happens (a kernel batch, the first snapshot, a
/// check's answer), added by the parts that need it: the one that happens never names who listens.
final class LoopHook {
    private var actions: [() -> Void] = []

    /// Runs `action` at every call from now on, after the ones added before it.
    func add(_ action: @escaping () -> Void) {
        actions.append(action)
    }

    func callAsFunction() {
        for action in actions { action() }
    }
}

/// Actions run after every update of the hub, from whichever thread made it, added by the parts that follow the
/// hub. The list is read under a lock: each action is kept in a class of its own, since a closure handed through
/// `withLock`'s generic `inout` is re-wrapped in reabstraction thunks on every call (a stored closure once grew
/// by two thunks per path change: a leak, and slower with every change).
final class HubUpdates: Sendable {
    private final class Action: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let actions = Locked<[Action]>([])

    func add(_ action: @escaping @Sendable () -> Void) {
        let action = Action(action)
        actions.withLock { $0.append(action) }
    }

    /// Runs `action` on `loop`'s thread after every update: at once when the update ran there, else queued. For a
    /// part that lives on the loop (not Sendable): it is kept `LoopBound`, so a touch off the loop traps.
    func add(on loop: SDEventLoop, _ action: @escaping () -> Void) {
        let bound = LoopBound(action, on: loop)
        add {
            guard loop.inLoop else {
                loop.execute { bound.value() }
                return
            }
            bound.value()
        }
    }

    func callAsFunction() {
        for action in actions.withLock({ $0 }) { action.run() }
    }
}

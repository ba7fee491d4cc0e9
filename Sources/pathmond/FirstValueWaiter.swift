// SPDX-License-Identifier: Apache-2.0
import Locking

/// A subscriber for one value: a one-shot call (GetPath) whose answer waits for the kernel to be asked about its
/// user's routing. The handler runs once, on the first delivery; later ones (a fan-out already queued) are dropped.
final class FirstValueWaiter: Subscriber, Sendable {
    let interest: Interest
    private let handler = Locked<(@Sendable (Published) -> Void)?>(nil)

    init(interest: Interest) {
        self.interest = interest
    }

    /// Sets what runs on the first delivery.
    func arm(_ handler: @escaping @Sendable (Published) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    func deliver(_ update: Update) {
        // Taken out, so that the handler (which unsubscribes this waiter) runs outside the lock, once.
        let handler = handler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        handler?(update.value)
    }
}

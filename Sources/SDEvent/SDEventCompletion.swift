// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A value handed from the loop's thread to one waiting thread: a POSIX semaphore, no thread pool behind it.
///
/// @unchecked Sendable: `value` is written once before `sem_post` and read after `sem_wait`, which orders them.
final class SDEventCompletion<Value: Sendable>: @unchecked Sendable {
    private var semaphore = sem_t()
    private var value: Value?

    init() { sem_init(&semaphore, 0, 0) }

    deinit { sem_destroy(&semaphore) }

    func complete(_ value: Value) {
        self.value = value
        sem_post(&semaphore)
    }

    func wait() -> Value {
        while sem_wait(&semaphore) != 0 && errno == EINTR {}
        return value!
    }
}

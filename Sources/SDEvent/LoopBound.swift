// SPDX-License-Identifier: Apache-2.0
/// State that only one loop's thread may touch, checked: what an `@unchecked Sendable` type otherwise rests on a
/// comment for ("touched on the loop only"). The wrapper may be shared across threads; reading or changing the value
/// anywhere but on its loop's thread (or before the loop runs, while its creator sets it up) traps, so a broken
/// invariant fails where it is broken rather than as a data race somewhere else.
public final class LoopBound<Value>: @unchecked Sendable {
    private var storage: Value
    /// The loop whose thread owns the value.
    public let loop: SDEventLoop

    public init(_ value: Value, on loop: SDEventLoop) {
        storage = value
        self.loop = loop
    }

    /// The value; only on the loop's thread.
    public var value: Value {
        get {
            checkAffinity()
            return storage
        }
        _modify {
            checkAffinity()
            yield &storage
        }
    }

    private func checkAffinity() {
        precondition(loop.isOwnedByCaller, "loop-bound state touched off its loop's thread")
    }
}

extension SDEventLoop {
    /// Whether the caller may touch the loop's state: on its thread while it runs, or anyone before it runs.
    public var isOwnedByCaller: Bool { inLoop || !isRunning }
}

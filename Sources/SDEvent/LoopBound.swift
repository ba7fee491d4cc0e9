// SPDX-License-Identifier: Apache-2.0
/// State that only one loop's thread may touch, checked: what an `@unchecked Sendable` type otherwise rests on a
/// comment for ("touched on the loop only"). The wrapper may be shared across threads; reading or changing the value
/// anywhere but on its loop's thread (or before the loop runs, while its creator sets it up) traps, so a broken
/// invariant fails where it is broken rather than as a data race somewhere else.
public final class LoopBound<Value>: @unchecked Sendable {
    @usableFromInline var storage: Value
    /// The loop whose thread owns the value.
    public let loop: SDEventLoop

    public init(_ value: Value, on loop: SDEventLoop) {
        storage = value
        self.loop = loop
    }

    /// The value; only on the loop's thread. Read in place: reading one field of a large state copies that field,
    /// not the whole state. Inlinable, so that other modules read it specialized: through the generic accessor, a
    /// caller copied the whole state to read one field of it.
    @inlinable public var value: Value {
        _read {
            checkAffinity()
            yield storage
        }
        _modify {
            checkAffinity()
            yield &storage
        }
    }

    /// The value without the check, for the owner's `deinit` alone, which runs on whichever thread let go last:
    /// nothing else reaches the owner any more (the loop's handlers hold it weakly), so nothing else touches the
    /// value, and the release that ended the owner orders every earlier access before this one.
    public var valueInOwnersDeinit: Value {
        _read { yield storage }
    }

    @usableFromInline func checkAffinity() {
        precondition(loop.isOwnedByCaller, "loop-bound state touched off its loop's thread")
    }
}

extension SDEventLoop {
    /// Whether the caller may touch the loop's state: on its thread while it runs, or anyone before it runs.
    public var isOwnedByCaller: Bool { inLoop || !isRunning }
}

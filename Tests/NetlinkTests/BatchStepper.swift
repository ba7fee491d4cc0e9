// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Steps through a watcher's batches with a deadline, applying each to a `KernelState` as it goes. No sleeps: a
/// deadline only bounds how long a test waits for what it expects.
struct BatchStepper {
    private enum Item: Sendable {
        case batch(KernelBatch)
        case deadline(Int)
        case finished
    }

    private var items: AsyncStream<Item>.AsyncIterator
    private let continuation: AsyncStream<Item>.Continuation
    private var deadlines = 0
    /// Every batch read so far, in order.
    private(set) var batches: [KernelBatch] = []
    /// The state after applying every batch read so far.
    private(set) var state = KernelState()

    /// The watcher this stepper reads, when it made one itself (`afterFirstDump(of:)`).
    private var watcher: KernelWatcher?

    /// A new watcher of `namespace` and a stepper already past its first dump: the start of most watcher tests.
    /// Call `stopWatching()` when done.
    static func afterFirstDump(of namespace: TestNetworkNamespace) async throws -> BatchStepper {
        let watcher = try KernelWatcher(namespacePath: namespace.path)
        var stepper = BatchStepper(watcher.batches())
        stepper.watcher = watcher
        do {
            try await stepper.next()
        } catch {
            watcher.stop()
            throw error
        }
        return stepper
    }

    /// Stops the watcher `afterFirstDump(of:)` made.
    func stopWatching() {
        watcher?.stop()
    }

    init(_ source: AsyncStream<KernelBatch>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        items = stream.makeAsyncIterator()
        self.continuation = continuation
        // Forwards the watcher's batches so that a deadline can be interleaved with them in one stream.
        Task {
            for await batch in source { continuation.yield(.batch(batch)) }
            continuation.yield(.finished)
        }
    }

    /// Reads batches until one satisfies `predicate` and returns it (all are applied to `state`).
    @discardableResult
    mutating func next(
        timeout: Duration = .seconds(5), where predicate: (KernelBatch) -> Bool = { _ in true }
    ) async throws -> KernelBatch {
        deadlines += 1
        let token = deadlines
        let continuation = continuation
        let timer = Task {
            try await Task.sleep(for: timeout)
            continuation.yield(.deadline(token))
        }
        defer { timer.cancel() }
        while let item = await items.next() {
            switch item {
            case .batch(let batch):
                batches.append(batch)
                state.apply(batch.events)
                if predicate(batch) { return batch }
            case .deadline(let expired) where expired == token:
                throw StepperError.timedOut(after: timeout)
            case .deadline:
                continue  // an earlier call's deadline, already met
            case .finished:
                throw StepperError.streamFinished
            }
        }
        throw StepperError.streamFinished
    }

    /// Reads batches until the state satisfies `predicate`.
    mutating func waitUntil(
        timeout: Duration = .seconds(5), _ predicate: (KernelState) -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !predicate(state) {
            try await next(timeout: max(deadline - clock.now, .zero))
        }
    }
}

enum StepperError: Error {
    case timedOut(after: Duration)
    case streamFinished
}

/// A fresh dump of the namespace from a new watcher: what a converged state must equal.
func freshSnapshot(of namespace: TestNetworkNamespace) async throws -> KernelSnapshot {
    let watcher = try KernelWatcher(namespacePath: namespace.path)
    defer { watcher.stop() }
    var stepper = BatchStepper(watcher.batches())
    let first = try await stepper.next()
    guard case .snapshot(let snapshot) = first.events.first else { throw StepperError.streamFinished }
    return KernelState(snapshot).snapshot
}

extension KernelState {
    /// The link with this name, if any.
    func link(named name: String) -> Link? {
        links.values.first { $0.name == name }
    }
}

extension BatchStepper {
    /// Waits until the state equals a fresh dump from a new watcher. The kernel may still be settling (DAD,
    /// linkwatch), so a few fresh dumps are tried, each given a moment for the notifications to catch up.
    mutating func waitUntilConverged(with namespace: TestNetworkNamespace, attempts: Int = 5) async throws {
        var fresh = KernelSnapshot()
        for _ in 0..<attempts {
            fresh = try await freshSnapshot(of: namespace)
            do {
                try await waitUntil(timeout: .seconds(1)) { $0.snapshot == fresh }
                return
            } catch StepperError.timedOut {
                continue
            }
        }
        #expect(
            state.snapshot == fresh,
            "the state never converged to a fresh dump: \(Self.difference(state.snapshot, fresh))")
    }

    /// What one snapshot has that the other lacks, briefly.
    static func difference(_ mine: KernelSnapshot, _ fresh: KernelSnapshot) -> String {
        func describe<T: Hashable>(_ label: String, _ left: [T], _ right: [T]) -> String {
            let extra = Set(left).subtracting(right)
            let missing = Set(right).subtracting(left)
            return "\(label): \(extra.count) extra \(extra.prefix(3)), \(missing.count) missing \(missing.prefix(3))"
        }
        return [
            describe("links", mine.links, fresh.links), describe("addresses", mine.addresses, fresh.addresses),
            describe("routes", mine.routes, fresh.routes),
            describe("neighbours", mine.neighbours, fresh.neighbours),
        ].joined(separator: "; ")
    }
}

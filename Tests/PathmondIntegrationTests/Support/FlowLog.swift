// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

/// Records a FlowMonitor's updates and waits, with a deadline, for the next status that matches.
actor FlowLog {
    private var updates: [FlowMonitor.Update] = []
    private var cursor = 0
    private var waiter:
        (id: Int, predicate: @Sendable (FlowStatus) -> Bool, continuation: CheckedContinuation<FlowStatus, any Error>)?
    private var nextID = 0

    nonisolated let monitor: FlowMonitor

    init(_ monitor: FlowMonitor) {
        self.monitor = monitor
        let updates = monitor.updates
        Task { for await update in updates { await self.append(update) } }
    }

    var all: [FlowMonitor.Update] { updates }

    private func append(_ update: FlowMonitor.Update) {
        updates.append(update)
        guard let waiter, let index = firstMatch(waiter.predicate), case .status(let status) = updates[index] else {
            return
        }
        self.waiter = nil
        cursor = index + 1
        waiter.continuation.resume(returning: status)
    }

    /// The next status (after those consumed) that satisfies `predicate`.
    func next(
        timeout: Duration = .seconds(15), _ description: String,
        where predicate: @escaping @Sendable (FlowStatus) -> Bool
    ) async throws -> FlowStatus {
        if let index = firstMatch(predicate), case .status(let status) = updates[index] {
            cursor = index + 1
            return status
        }
        nextID += 1
        let id = nextID
        return try await withCheckedThrowingContinuation { continuation in
            waiter = (id, predicate, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id, description)
            }
        }
    }

    /// Waits for the next `.unavailable`.
    func nextUnavailable(timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if updates.dropFirst(cursor).contains(where: { if case .unavailable = $0 { true } else { false } }) {
                cursor = updates.count
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TimedOut(description: "the flow monitor to report pathmond unavailable", updates: [])
    }

    private func expire(_ id: Int, _ description: String) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        let seen = updates.map { "\($0)" }.joined(separator: "\n  ")
        waiter.continuation.resume(
            throwing: TimedOut(description: "\(description); flow updates:\n  \(seen)", updates: []))
    }

    private func firstMatch(_ predicate: (FlowStatus) -> Bool) -> Int? {
        updates.indices.dropFirst(cursor).first {
            if case .status(let status) = updates[$0] { return predicate(status) }
            return false
        }
    }
}

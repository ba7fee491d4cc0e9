// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

/// Records every update a `PathMonitor` delivers and lets a test wait, with a deadline, for the next one that
/// matches. Tests step through what a real client saw; they never sleep.
actor UpdateLog {
    private var updates: [NetworkPathMonitor.Update] = []
    private var cursor = 0
    private var waiter: Waiter?

    private struct Waiter {
        let id: Int
        let predicate: @Sendable (NetworkPathMonitor.Update) -> Bool
        let continuation: CheckedContinuation<NetworkPathMonitor.Update, any Error>
    }

    private var nextWaiterID = 0

    /// Every update seen so far, in order.
    var all: [NetworkPathMonitor.Update] { updates }

    /// The paths seen so far, in order.
    var paths: [Path] {
        updates.compactMap { if case .path(let path) = $0 { return path } else { return nil } }
    }

    func append(_ update: NetworkPathMonitor.Update) {
        updates.append(update)
        guard let waiter, let index = firstMatch(waiter.predicate) else { return }
        self.waiter = nil
        cursor = index + 1
        waiter.continuation.resume(returning: updates[index])
    }

    /// The next path (after those already consumed) that satisfies `predicate`.
    func nextPath(
        timeout: Duration = .seconds(15), _ description: String = "a matching path",
        where predicate: @escaping @Sendable (Path) -> Bool
    ) async throws -> Path {
        let update = try await next(timeout: timeout, description) { update in
            if case .path(let path) = update { return predicate(path) }
            return false
        }
        guard case .path(let path) = update else { fatalError("the predicate only accepts paths") }
        return path
    }

    /// The next update (after those already consumed) that satisfies `predicate`.
    func next(
        timeout: Duration = .seconds(15), _ description: String = "a matching update",
        where predicate: @escaping @Sendable (NetworkPathMonitor.Update) -> Bool
    ) async throws -> NetworkPathMonitor.Update {
        if let index = firstMatch(predicate) {
            cursor = index + 1
            return updates[index]
        }
        nextWaiterID += 1
        let id = nextWaiterID
        let seen = updates
        return try await withCheckedThrowingContinuation { continuation in
            waiter = Waiter(id: id, predicate: predicate, continuation: continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id, description: description, seen: seen)
            }
        }
    }

    private func expire(_ id: Int, description: String, seen: [NetworkPathMonitor.Update]) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(throwing: TimedOut(description: description, updates: updates))
    }

    private func firstMatch(_ predicate: (NetworkPathMonitor.Update) -> Bool) -> Int? {
        updates.indices.dropFirst(cursor).first { predicate(updates[$0]) }
    }
}

/// No matching update arrived in time; carries what did arrive, for the failure message.
struct TimedOut: Error, CustomStringConvertible {
    let description: String

    init(description: String, updates: [NetworkPathMonitor.Update]) {
        self.description =
            "timed out waiting for \(description); updates seen:\n"
            + updates.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// A PathMonitor connected to a test daemon, with its updates recorded.
struct RecordedMonitor {
    let monitor: NetworkPathMonitor
    let log = UpdateLog()

    init(socketPath: String) {
        monitor = NetworkPathMonitor(socketPath: socketPath, retryDelay: .milliseconds(50))
        let log = log
        let updates = monitor.updates
        // One task appends in the order the monitor delivered.
        Task {
            for await update in updates { await log.append(update) }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Locking
import Logging
import SDEvent
import StateFiles

/// Writes the usage file off the main loop (the write syncs the disk): the main loop hands it the newest encoded
/// file, the writer's loop (`pathmond-policy`, which saves the policy the same way) writes the newest it holds.
/// Writes that queue up while one is in progress collapse into one of the newest bytes.
final class UsageWriter: Sendable {
    private struct Pending {
        var bytes: [UInt8]?
        var isQueued = false
        var lastFailure: String?
    }

    private let file: UsageFile
    private let loop: SDEventLoop
    private let logger: Logger
    private let pending = Locked(Pending())
    /// Held while writing: the final write at stop and one on the writer's loop never interleave.
    private let writing = Lock()

    init(file: UsageFile, loop: SDEventLoop, logger: Logger) {
        self.file = file
        self.loop = loop
        self.logger = logger
    }

    /// Queues `bytes` for writing on the writer's loop. From any thread.
    func save(_ bytes: [UInt8]) {
        let queue = pending.withLock { pending in
            pending.bytes = bytes
            defer { pending.isQueued = true }
            return !pending.isQueued
        }
        if queue { loop.execute { [self] in writePending() } }
    }

    /// Writes `bytes` now, on the calling thread: at stop, after the main loop has exited.
    func saveNow(_ bytes: [UInt8]) {
        pending.withLock { $0.bytes = bytes }
        writePending()
    }

    private func writePending() {
        writing.withLock {
            let bytes = pending.withLock { pending in
                pending.isQueued = false
                defer { pending.bytes = nil }
                return pending.bytes
            }
            guard let bytes else { return }
            do {
                try file.write(bytes)
                let recovered = pending.withLock { pending in
                    defer { pending.lastFailure = nil }
                    return pending.lastFailure != nil
                }
                if recovered { logger.notice("writing \(file.path) works again") }
            } catch {
                // A full disk is logged once, not once an interval; the next interval tries again.
                let message = "cannot write the usage file: \(error)"
                let isNew = pending.withLock { pending in
                    defer { pending.lastFailure = message }
                    return pending.lastFailure != message
                }
                if isNew { logger.error("\(message)") }
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Netlink

extension KernelWatcher {
    /// The batches as an AsyncStream, for tests that step through them (`start(handler:)` is what the daemon
    /// uses: one thread hop fewer). The stream ends when the watcher stops; ending the iteration stops the watcher.
    /// There is one consumer: calling this twice, or with `start(handler:)`, is a programmer error.
    public func batches() -> AsyncStream<KernelBatch> {
        let (stream, continuation) = AsyncStream.makeStream(of: KernelBatch.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in self?.stop() }
        start(handler: { continuation.yield($0) }, finish: { continuation.finish() })
        return stream
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathmondClient

extension ReconnectingWatch {
    /// A new sequence of the events, mapped for the public API. It holds `owner` (the monitor) while iterated, so
    /// `for await p in NetworkPathMonitor().paths` keeps its monitor alive, and lets it go when the iteration ends.
    func stream<Element: Sendable>(
        keepingAlive owner: some AnyObject & Sendable, _ map: @escaping @Sendable (WatchEvent<Value>) -> Element
    ) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let token = addConsumer(.init(deliver: { continuation.yield(map($0)) }, finish: { continuation.finish() }))
            continuation.onTermination = { _ in withExtendedLifetime(owner) { self.removeConsumer(token) } }
            if token == nil { continuation.finish() }
        }
    }
}

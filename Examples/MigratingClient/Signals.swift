// SPDX-License-Identifier: Apache-2.0
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for the first of `signals` (SIGINT, SIGTERM) and returns it; returns nil if the task is cancelled first.
///
/// The signals' default action (ending the process at once) is turned off and a Dispatch source watches for them
/// instead, so the client can close its connection properly before it exits.
func firstSignal(of signals: [Int32]) async -> Int32? {
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    let queue = DispatchQueue(label: "migrating-client.signals")
    let sources = signals.map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { continuation.yield(number) }
        source.activate()
        return source
    }
    defer { for source in sources { source.cancel() } }
    for await number in stream { return number }
    return nil
}

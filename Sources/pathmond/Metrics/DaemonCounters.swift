// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// What the daemon counts as it runs, for the metrics file: plain atomics, bumped by one at each call site, read
/// when the file is written. Sendable and lock-free, so any thread may count.
final class DaemonCounters: Sendable {
    /// Changes of the system path.
    let pathChanges = Atomic<Int64>(0)
    /// Flow statuses that turned to "a better path is available" (WatchFlow).
    let betterPathEvents = Atomic<Int64>(0)
    /// Full re-reads of the kernel's tables after lost notifications or an interrupted dump.
    let netlinkResyncs = Atomic<Int64>(0)
    /// Client connections accepted since start.
    let clientsConnected = Atomic<Int64>(0)
    /// Client connections open now.
    let clientsOpen = Atomic<Int64>(0)
    /// Clients that broke the protocol (and were closed).
    let protocolErrors = Atomic<Int64>(0)
    /// Policy files written (SetExpensive, SetConstrained, ForgetNetwork).
    let policyWrites = Atomic<Int64>(0)

    /// Adds one to a counter.
    static func bump(_ counter: borrowing Atomic<Int64>, by amount: Int64 = 1) {
        counter.wrappingAdd(amount, ordering: .relaxed)
    }

    /// Every value, in a fixed order: what the metrics file shows, and how the writer tells whether it changed.
    var snapshot: Snapshot {
        Snapshot(
            pathChanges: pathChanges.load(ordering: .relaxed),
            betterPathEvents: betterPathEvents.load(ordering: .relaxed),
            netlinkResyncs: netlinkResyncs.load(ordering: .relaxed),
            clientsConnected: clientsConnected.load(ordering: .relaxed),
            clientsOpen: clientsOpen.load(ordering: .relaxed),
            protocolErrors: protocolErrors.load(ordering: .relaxed),
            policyWrites: policyWrites.load(ordering: .relaxed))
    }

    struct Snapshot: Sendable, Hashable {
        var pathChanges: Int64 = 0
        var betterPathEvents: Int64 = 0
        var netlinkResyncs: Int64 = 0
        var clientsConnected: Int64 = 0
        var clientsOpen: Int64 = 0
        var protocolErrors: Int64 = 0
        var policyWrites: Int64 = 0
    }
}

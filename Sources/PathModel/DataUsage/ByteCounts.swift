// SPDX-License-Identifier: Apache-2.0
/// Bytes sent and received: one interval's delta, one day's bucket, or a cycle's total.
public struct ByteCounts: Sendable, Hashable {
    /// Bytes the interface sent (tx_bytes).
    public var sent: UInt64
    /// Bytes the interface received (rx_bytes).
    public var received: UInt64

    public init(sent: UInt64 = 0, received: UInt64 = 0) {
        self.sent = sent
        self.received = received
    }

    /// No byte either way.
    public static let zero = ByteCounts()

    /// Sent and received together: what a plan's data limit counts.
    public var total: UInt64 { sent &+ received }

    /// Whether both counters are at least `other`'s: false means the kernel's counters went back (a reset).
    public func isAtLeast(_ other: ByteCounts) -> Bool { sent >= other.sent && received >= other.received }

    /// Saturating: a sum of counts never wraps to a small number.
    public static func + (lhs: ByteCounts, rhs: ByteCounts) -> ByteCounts {
        ByteCounts(
            sent: lhs.sent.addingReportingOverflow(rhs.sent).overflow ? .max : lhs.sent + rhs.sent,
            received: lhs.received.addingReportingOverflow(rhs.received).overflow ? .max : lhs.received + rhs.received)
    }

    public static func += (lhs: inout ByteCounts, rhs: ByteCounts) { lhs = lhs + rhs }
}

// SPDX-License-Identifier: Apache-2.0
/// One change of the system path: when, from what, to what, and why.
public struct PathHistoryEntry: Sendable, Hashable {
    /// Grows by one per entry over the daemon's whole history (it continues after a restart), so a follower can
    /// tell what it has seen.
    public var sequence: UInt64
    /// Wall-clock time, microseconds since the Unix epoch (what people read; it may jump).
    public var wallMicroseconds: Int64
    /// CLOCK_MONOTONIC, microseconds (what intervals are measured with; meaningful within one boot).
    public var monotonicMicroseconds: UInt64
    /// The kernel's boot ID, so monotonic times of different boots are not compared; empty if unknown.
    public var bootID: String
    public var before: PathSummary
    public var after: PathSummary
    public var cause: PathChangeCause

    public init(
        sequence: UInt64, wallMicroseconds: Int64, monotonicMicroseconds: UInt64, bootID: String = "",
        before: PathSummary, after: PathSummary, cause: PathChangeCause
    ) {
        self.sequence = sequence
        self.wallMicroseconds = wallMicroseconds
        self.monotonicMicroseconds = monotonicMicroseconds
        self.bootID = bootID
        self.before = before
        self.after = after
        self.cause = cause
    }

    /// Whether the entry concerns the interface: in the path before or after, or named by the cause.
    public func concerns(interface name: String) -> Bool {
        before.interfaces.contains(name) || after.interfaces.contains(name) || cause.interfaces.contains(name)
    }
}

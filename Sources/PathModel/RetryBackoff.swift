// SPDX-License-Identifier: Apache-2.0
/// Waits that double after each failure in a row, from `first` up to `longest`: how pathmond asks again whatever
/// did not answer (a gateway that did not resolve, a captive portal's API), quick at first and bounded after.
public struct RetryBackoff: Sendable, Hashable {
    public let first: Duration
    public let longest: Duration

    public init(first: Duration, longest: Duration) {
        self.first = first
        self.longest = longest
    }

    /// The wait after `failures` failures in a row (one or more): `first` after one, twice that after two, and so
    /// on, never past `longest`, however many there were.
    public func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        return min(first * (1 << doublings), longest)
    }
}

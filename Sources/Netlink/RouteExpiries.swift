// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Routes that expire (IPv6 only: `expires N`, a router advertisement's lifetime) and when: the kernel stops using
/// such a route at that instant and says nothing until its garbage collection deletes it, up to 30 s later, so the
/// route follower asks again at the instant itself. Not a poll: instants known in advance.
struct RouteExpiries {
    /// An expiring route's prefix and when the kernel stops using it.
    private struct Pending {
        var address: IPAddress
        var length: Int
        var due: ContinuousClock.Instant
    }

    private var pending: [Pending] = []

    /// How long after a route's reported expiry it is asked again: `rta_expires` is rounded down to 1/100 s, and
    /// the kernel's own check is "after", one jiffy (up to 10 ms) later.
    static let slack = Duration.milliseconds(25)

    /// Keeps the expiries reported now; many collapse into the earliest, for every IPv6 destination.
    mutating func note(_ reported: [RouteExpiry], now: ContinuousClock.Instant) {
        for expiry in reported {
            pending.append(
                Pending(
                    address: expiry.address, length: expiry.length,
                    due: now + .milliseconds(Int64(expiry.centiseconds) * 10) + Self.slack))
        }
        if pending.count > RoutingChange.maximumPrefixes, let earliest = pending.map(\.due).min() {
            let everywhere = IPAddress(bytes: [UInt8](repeating: 0, count: 16))!  // 16 bytes: an IPv6 address
            pending = [Pending(address: everywhere, length: 0, due: earliest)]
        }
    }

    /// When the next route expires (with its slack); nil if none does.
    var next: ContinuousClock.Instant? { pending.map(\.due).min() }

    /// The prefixes of the routes expired by `now`.
    func prefixesDue(at now: ContinuousClock.Instant) -> [(address: IPAddress, length: Int)] {
        pending.filter { $0.due <= now }.map { ($0.address, $0.length) }
    }

    /// Forgets the routes expired by `now`.
    mutating func removeDue(at now: ContinuousClock.Instant) {
        pending.removeAll { $0.due <= now }
    }
}

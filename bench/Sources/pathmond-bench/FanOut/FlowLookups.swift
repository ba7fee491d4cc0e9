// SPDX-License-Identifier: Apache-2.0
/// The kernel's share of a WatchFlow fan-out: the two route look-ups per flow that pathmond asks after a change
/// (`ip route get REMOTE from LOCAL uid 0` for the connection, `ip route get REMOTE uid 0` for a new one), asked
/// as pathmond asks them (`RouteAsker`). Timed in pathmond's own namespace once a change has reached every
/// subscriber, against the same routes: look-ups make no notification, so pathmond stays idle. With the raw
/// fan-out it is the floor of a daemon that follows the kernel's own routing decision for every flow (issue 12)
/// before it tells the flow's subscriber.
final class FlowLookups {
    private let asker: RouteAsker
    private let datagrams: [RouteAsker.Datagram]
    /// The look-ups one `askAll()` asks: two per flow.
    let count: Int

    /// A request socket in `namespace` for the flows from `local` to each of `remotes` (IPv4, network order).
    init(in namespace: BenchNamespace, local: [UInt8], remotes: [[UInt8]]) throws(BenchError) {
        asker = try namespace.entered { () throws(BenchError) in try RouteAsker() }
        let queries = remotes.flatMap { [RouteAsker.Query(remote: $0, local: local), RouteAsker.Query(remote: $0)] }
        count = queries.count
        datagrams = RouteAsker.pack(queries)
    }

    /// Asks every look-up and reads every reply; the time it took, in ns, and how many replies came.
    func askAll() -> (nanoseconds: UInt64, replies: Int) {
        let start = monotonicNanoseconds()
        let replies = datagrams.reduce(0) { $0 + asker.ask($1) }
        return (monotonicNanoseconds() - start, replies)
    }
}

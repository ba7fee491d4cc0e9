// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What became of a request to resolve a gateway.
enum GatewayResolution: Equatable {
    /// The kernel took it: its answer comes as a neighbour notification.
    case requested
    /// The kernel refused it (errno): EPERM without CAP_NET_ADMIN.
    case refused(errno: Int32)
    /// No reply came (a lost datagram); asked again later like an unanswered one.
    case noReply
}

/// What the follower asks of the kernel: `RouteLookupSocket`, or a stand-in that counts the questions in tests.
protocol RouteLookup: AnyObject {
    /// The kernel's decisions for these queries; one without an answer is missing. `outputIndexes`: the index of
    /// each output interface the queries name (every one of them is there).
    func decide(
        _ queries: some Collection<RouteQuery>, outputIndexes: [String: Int32]
    ) -> [RouteQuery: RouteDecision]
    /// The gateway's neighbour entry if the kernel has resolved it.
    func neighbour(_ gateway: GatewayKey) -> Neighbour?
    /// Asks the kernel to resolve the gateway.
    func resolve(_ gateway: GatewayKey) -> GatewayResolution
    /// The IPv6 routes that expire, and how long each has left; nil when they could not be read.
    func expiringRoutes() -> [RouteExpiry]?
}

extension RouteLookup {
    /// Stand-ins that know no expiring routes.
    func expiringRoutes() -> [RouteExpiry]? { nil }
}

extension RouteLookupSocket: RouteLookup {}

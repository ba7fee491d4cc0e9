// SPDX-License-Identifier: Apache-2.0
/// A connection a client holds: where it leaves the machine and what it may use. pathmond tells it when the
/// connection stops being viable and when a better path appears.
public struct Flow: Sendable, Hashable {
    /// The interface the connection uses, as the client named it.
    public var interfaceName: String
    /// That interface's index, when known (the daemon fills it in when the client watches): what identifies the
    /// interface, as a socket bound to it holds the index. A rename keeps the index, so the flow stays on its
    /// interface and replies carry the current name; the name serves only while the index names no interface (not
    /// known, or the interface was deleted and one of the same name may have come back).
    public var interfaceIndex: Int32?
    /// The connection's local address.
    public var localAddress: IPAddress
    /// The peer, when the client said; lets viability check the route to it.
    public var remoteAddress: IPAddress?
    /// What the client may use; better paths respect it.
    public var parameters: PathParameters
    /// The socket is bound to its interface (SO_BINDTODEVICE): its packets leave by that interface whatever the
    /// routes prefer, so the kernel is asked for the route out of it, not for where an unbound packet would go.
    public var isBoundToInterface: Bool

    public init(
        interfaceName: String, localAddress: IPAddress, remoteAddress: IPAddress? = nil,
        parameters: PathParameters = .unrestricted, isBoundToInterface: Bool = false, interfaceIndex: Int32? = nil
    ) {
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
        self.parameters = parameters
        self.isBoundToInterface = isBoundToInterface
    }
}

extension Flow {
    /// Where the flow's own next packet goes: to its remote, from its local address (rules may select on it), and
    /// out of its interface when the socket is bound to it (`ip route get REMOTE from LOCAL oif IFACE`, the
    /// interface by index: a bound socket whose device is unknown or gone sends nowhere).
    public var currentRouteQuery: RouteQuery? {
        remoteAddress.map {
            RouteQuery(
                destination: $0, source: localAddress, uid: routingUser,
                outputInterfaceIndex: isBoundToInterface ? boundIndex : nil)
        }
    }

    /// For a bound IPv6 socket, the same question without the source (`ip -6 route get REMOTE oif IFACE`). IPv6
    /// holds a packet to its output interface only when the socket is bound (`ip6_route_output_flags`: the socket's
    /// `sk_bound_dev_if`) or when no source is given; RTM_GETROUTE has no socket, so `currentRouteQuery`, which
    /// carries the source, is answered as if the interface were a mere preference (eth0's lower metric wins over
    /// the bound eth2's route). Asked without the source the kernel is strict, as for the socket, but rules and
    /// routes that select on the source do not apply: the flow is viable when either answer is its interface.
    public var boundRouteQuery: RouteQuery? {
        guard isBoundToInterface, localAddress.family == .ipv6, let remoteAddress else { return nil }
        return RouteQuery(destination: remoteAddress, uid: routingUser, outputInterfaceIndex: boundIndex)
    }

    /// Where a new connection to the same remote would go: no source chosen yet. Both queries are asked as the
    /// flow's routing user (its client's uid), whose `uidrange` rules apply.
    public var newConnectionRouteQuery: RouteQuery? {
        remoteAddress.map { RouteQuery(destination: $0, uid: routingUser) }
    }

    /// The queries a flow asks, when it has a remote to ask about.
    public var routeQueryPair: FlowRouteQueries? {
        guard let current = currentRouteQuery, let newConnection = newConnectionRouteQuery else { return nil }
        return FlowRouteQueries(current: current, newConnection: newConnection, bound: boundRouteQuery)
    }

    /// The queries the kernel is asked for this flow.
    public var routeQueries: [RouteQuery] { routeQueryPair?.all ?? [] }

    private var routingUser: UInt32 { parameters.routingUser ?? RouteQuery.systemUser }

    /// The bound device's index; 0, which names no interface, while it is not known.
    private var boundIndex: Int32 { interfaceIndex ?? 0 }
}

/// A flow's two route queries, made together and kept by whoever judges the flow again and again: a query hashes
/// its fields once, when it is made, so making them anew for every judgement cost what the hashing saved.
public struct FlowRouteQueries: Sendable, Hashable {
    /// Where the flow's own next packet goes (`Flow.currentRouteQuery`).
    public let current: RouteQuery
    /// Where a new connection to the same remote would go (`Flow.newConnectionRouteQuery`).
    public let newConnection: RouteQuery
    /// A bound IPv6 socket's packet, asked without its source (`Flow.boundRouteQuery`).
    public let bound: RouteQuery?

    public init(current: RouteQuery, newConnection: RouteQuery, bound: RouteQuery? = nil) {
        self.current = current
        self.newConnection = newConnection
        self.bound = bound
    }

    /// Every one of them.
    public var all: [RouteQuery] { bound.map { [current, newConnection, $0] } ?? [current, newConnection] }
}

/// What a flow's client needs to know, as Network.framework's viability and better-path handlers say it.
public struct FlowStatus: Sendable, Hashable {
    /// The connection can still send and receive over its interface.
    public var isViable: Bool
    /// Another path that the flow's parameters allow is preferred over the flow's own.
    public var betterPathAvailable: Bool
    /// The interface a new connection should use, when one is better.
    public var betterInterface: String?
    /// That interface's usable addresses, of the family the flow's parameters allow: what a new connection binds
    /// to, given with the verdict so that no second question can race the next change.
    public var betterInterfaceAddresses: [IPAddress]

    public init(
        isViable: Bool, betterPathAvailable: Bool, betterInterface: String? = nil,
        betterInterfaceAddresses: [IPAddress] = []
    ) {
        self.isViable = isViable
        self.betterPathAvailable = betterPathAvailable
        self.betterInterface = betterInterface
        self.betterInterfaceAddresses = betterInterfaceAddresses
    }
}

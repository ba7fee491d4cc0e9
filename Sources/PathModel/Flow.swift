// SPDX-License-Identifier: Apache-2.0
/// A connection a client holds: where it leaves the machine and what it may use. pathmond tells it when the
/// connection stops being viable and when a better path appears.
public struct Flow: Sendable, Hashable {
    /// The interface the connection uses.
    public var interfaceName: String
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
        parameters: PathParameters = .unrestricted, isBoundToInterface: Bool = false
    ) {
        self.interfaceName = interfaceName
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
        self.parameters = parameters
        self.isBoundToInterface = isBoundToInterface
    }
}

extension Flow {
    /// Where the flow's own next packet goes: to its remote, from its local address (rules may select on it), and
    /// out of its interface when the socket is bound to it (`ip route get REMOTE from LOCAL oif IFACE`).
    public var currentRouteQuery: RouteQuery? {
        remoteAddress.map {
            RouteQuery(
                destination: $0, source: localAddress, uid: parameters.routingUser ?? RouteQuery.systemUser,
                outputInterface: isBoundToInterface ? interfaceName : nil)
        }
    }

    /// Where a new connection to the same remote would go: no source chosen yet. Both queries are asked as the
    /// flow's routing user (its client's uid), whose `uidrange` rules apply.
    public var newConnectionRouteQuery: RouteQuery? {
        remoteAddress.map { RouteQuery(destination: $0, uid: parameters.routingUser ?? RouteQuery.systemUser) }
    }

    /// Both queries, when the flow has a remote to ask about.
    public var routeQueryPair: FlowRouteQueries? {
        guard let current = currentRouteQuery, let newConnection = newConnectionRouteQuery else { return nil }
        return FlowRouteQueries(current: current, newConnection: newConnection)
    }

    /// The queries the kernel is asked for this flow.
    public var routeQueries: [RouteQuery] { routeQueryPair.map { [$0.current, $0.newConnection] } ?? [] }
}

/// A flow's two route queries, made together and kept by whoever judges the flow again and again: a query hashes
/// its fields once, when it is made, so making them anew for every judgement cost what the hashing saved.
public struct FlowRouteQueries: Sendable, Hashable {
    /// Where the flow's own next packet goes (`Flow.currentRouteQuery`).
    public let current: RouteQuery
    /// Where a new connection to the same remote would go (`Flow.newConnectionRouteQuery`).
    public let newConnection: RouteQuery
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

// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon does for each method of the table, once the call's parameters are decoded and its rules
/// checked (`MethodRoute`).
struct MethodHandlers: Sendable {
    let hub: PathHub
    let policy: PolicyController
    let version: String
    /// Issue 43's usage meter; nil in tests that run no daemon.
    let usage: UsageService?
    private let codec = VarlinkCodec()

    init(hub: PathHub, policy: PolicyController, usage: UsageService? = nil, version: String) {
        self.hub = hub
        self.policy = policy
        self.usage = usage
        self.version = version
    }

    /// One route per method-table entry.
    var routes: [MethodRoute] {
        [
            MethodRoute(Methods.getInfo) { _ in .reply(codec.encodeReply(info)) },
            MethodRoute(Methods.getInterfaceDescription) { call throws(VarlinkError) in
                let interface = call.parameters.interface
                guard let description = VarlinkInterfaces.descriptions[interface] else {
                    throw .interfaceNotFound(interface: interface)
                }
                return .reply(codec.encodeReply(Methods.InterfaceDescriptionReply(description: description)))
            },
            MethodRoute(Methods.getPath, reading: Methods.PathParameters.init(json:)) { call throws(VarlinkError) in
                try pathNow(Self.parameters(call.parameters.requirements, peer: call.peer))
            },
            MethodRoute(Methods.watchPath, reading: Methods.PathParameters.init(json:)) { call throws(VarlinkError) in
                let parameters = try Self.parameters(call.parameters.requirements, peer: call.peer)
                // Without "more", one reply with the path now, as GetPath.
                return call.more ? .startWatching(.path(parameters)) : pathNow(parameters)
            },
            MethodRoute(Methods.watchFlow, reading: Methods.FlowParameters.init(json:)) { call throws(VarlinkError) in
                do throws(WireFormatError) {
                    var flow = try call.parameters.flow.flow()
                    flow.parameters.routingUser = Self.routingUser(of: call.peer)
                    // The interface is its index from here on: a rename keeps the flow on it (issue 40). The
                    // client's, when it names an interface (it watched before a rename and a restart); else the
                    // name's.
                    flow.interfaceIndex = hub.interfaceIndex(of: flow)
                    return .startWatching(.flow(flow))
                } catch {
                    guard case .unknownValue(let field, _) = error else { throw .invalidParameter(parameter: "flow") }
                    throw .invalidParameter(parameter: field)
                }
            },
            MethodRoute(Methods.getHistory) { call in .history(call.parameters.query, follows: call.more) },
            MethodRoute(Methods.listInterfaces) { _ in
                let interfaces = WireInterface.list(hub.interfaces, policy: hub.context.policy)
                return .reply(codec.encodeReply(Methods.InterfacesReply(interfaces: interfaces)))
            },
            MethodRoute(Methods.listNetworks) { _ in
                .reply(codec.encodeReply(Methods.NetworksReply(networks: policy.networks())))
            },
            MethodRoute(Methods.getStatus) { _ in
                let status = WireDaemonStatus(
                    version: version, policyFile: policy.policyFile, policyProblem: policy.policyProblem,
                    networkNamespace: Self.networkNamespace)
                return .reply(codec.encodeReply(Methods.StatusReply(status: status)))
            },
            MethodRoute(Methods.getUsage) { _ in
                .reply(codec.encodeReply(Methods.UsageReply(networks: usage?.wireReport() ?? [])))
            },
            MethodRoute(Methods.setConstrained) { call throws(VarlinkError) in
                let parameters = call.parameters
                let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
                let constrained = parameters.constrained
                // Off clears the mark: Low Data Mode is a choice to make, not a default to pin.
                return changePolicy(target, by: call.peer) { $0.isConstrained = constrained ? true : nil }
            },
            MethodRoute(Methods.setUltraConstrained) { call throws(VarlinkError) in
                let parameters = call.parameters
                let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
                let ultra = parameters.ultraConstrained
                return changePolicy(target, by: call.peer) { $0.isUltraConstrained = ultra ? true : nil }
            },
            MethodRoute(Methods.setExpensive) { call throws(VarlinkError) in
                let parameters = call.parameters
                let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
                let expensive = parameters.expensive
                return changePolicy(target, by: call.peer) { $0.isExpensive = expensive }
            },
            MethodRoute(Methods.setNetworkName) { call throws(VarlinkError) in
                let parameters = call.parameters
                let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
                let name = parameters.name
                if let name, !NetworkPolicy.isValidName(name) { throw .invalidParameter(parameter: "name") }
                return changePolicy(target, by: call.peer) { $0.name = name }
            },
            MethodRoute(Methods.setDataLimit) { call throws(VarlinkError) in
                let parameters = call.parameters
                let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
                let limit = try parameters.limit()
                return changePolicy(target, by: call.peer) { $0.dataLimit = limit }
            },
            MethodRoute(Methods.forgetNetwork) { call in
                let key = call.parameters.key
                let peer = call.peer
                return .deferred { [codec, policy] reply in
                    policy.forget(key, by: peer) { result in
                        switch result {
                        case .success: reply(codec.encodeReply(NoParameters()))
                        case .failure(let error): reply(codec.encodeError(error))
                        }
                    }
                }
            },
        ]
    }

    private var info: Methods.InfoReply {
        Methods.InfoReply(
            vendor: "pathmond", product: "pathmond", version: version, url: "",
            interfaces: [VarlinkInterfaces.service, VarlinkInterfaces.pathmond])
    }

    /// The commonest call, answered by the writer the streams use rather than JSONEncoder. A user whose routing
    /// the kernel has not been asked about (no client of that user watches) is answered once it has: the
    /// system's path would be wrong for that user under a `uidrange` rule.
    private func pathNow(_ parameters: PathParameters) -> CallOutcome {
        if let path = hub.pathIfKnown(for: parameters) { return .reply(Self.pathReply(path)) }
        return .deferred { [hub] reply in
            hub.whenKnown(.path(parameters)) { value in reply(Self.pathReply(value.path!)) }
        }
    }

    private static func pathReply(_ path: Path) -> [UInt8] {
        StreamedReplyWriter.pathReply(path, continues: false)
    }

    /// The inode of this process's network namespace, for GetStatus: pathctl compares it with its own, as
    /// networkctl does, to warn when it talks to a daemon that watches another namespace's network.
    private static let networkNamespace: Int? = {
        var information = stat()
        guard stat("/proc/self/ns/net", &information) == 0 else { return nil }
        return Int(exactly: information.st_ino)
    }()

    /// GetPath's and WatchPath's optional requirements (none: no restriction), for the client's own routing (its
    /// uid's) unless it asked for the system's. A value the interface does not define is named by its field.
    private static func parameters(
        _ wire: WirePathRequirements?, peer: PeerCredentials?
    ) throws(VarlinkError) -> PathParameters {
        do throws(WireFormatError) {
            var parameters = try wire?.parameters() ?? .unrestricted
            if wire?.systemRouting != true { parameters.routingUser = routingUser(of: peer) }
            return parameters
        } catch {
            guard case .unknownValue(let field, _) = error else { throw .invalidParameter(parameter: "requirements") }
            throw .invalidParameter(parameter: field)
        }
    }

    /// Whose routing a client's path and flows follow: its uid's (SO_PEERCRED), root's as the system's (nil, so
    /// that root's clients share the system path's evaluation), and the system's when the kernel gave no
    /// credentials.
    static func routingUser(of peer: PeerCredentials?) -> UInt32? {
        guard let user = peer?.userID, user != RouteQuery.systemUser else { return nil }
        return user
    }

    private func changePolicy(
        _ target: PolicyController.Target, by peer: PeerCredentials?,
        _ change: @escaping @Sendable (inout NetworkPolicy) -> Void
    ) -> CallOutcome {
        .deferred { [codec, policy] reply in
            policy.change(target, by: peer, change) { result in
                switch result {
                case .success(let network): reply(codec.encodeReply(Methods.NetworkReply(network: network)))
                case .failure(let error): reply(codec.encodeError(error))
                }
            }
        }
    }
}

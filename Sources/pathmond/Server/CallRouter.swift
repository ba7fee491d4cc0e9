// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// What a connection does with one call: the Varlink semantics of pathmond's methods, free of sockets.
enum CallOutcome {
    /// Send these bytes (one reply or error, NUL included).
    case reply([UInt8])
    /// Send this error, then close: the peer broke the protocol and what follows cannot be trusted.
    case replyAndClose([UInt8])
    /// A oneway call: send nothing.
    case noReply
    /// Start streaming a path or a flow's status to this connection (WatchPath, WatchFlow with "more").
    case startWatching(Interest)
    /// Send the stored history entries a query selects (GetHistory), written from the shared encoding as the
    /// socket takes them; with `follows`, then every new one (GetHistory with "more").
    case history(PathHistoryQuery, follows: Bool)
    /// The reply comes later (a policy write): run `start`, which calls back once with the reply.
    case deferred(start: @Sendable (_ reply: @escaping @Sendable ([UInt8]) -> Void) -> Void)
}

/// Routes decoded calls to pathmond's methods and encodes their replies.
struct CallRouter: Sendable {
    let hub: PathHub
    let policy: PolicyController
    let version: String
    private let codec = VarlinkCodec()

    init(hub: PathHub, policy: PolicyController, version: String) {
        self.hub = hub
        self.policy = policy
        self.version = version
    }

    /// Handles one framed message (without its NUL) from a peer whose credentials the kernel gave.
    func handle(_ frame: [UInt8], from peer: PeerCredentials?) -> CallOutcome {
        let call: VarlinkCall
        do {
            call = try codec.decode(VarlinkCall.self, from: frame)
        } catch {
            return .replyAndClose(codec.encodeError(.protocolError(reason: error.description)))
        }
        let outcome: CallOutcome
        do {
            outcome = try route(call, frame: frame, peer: peer)
        } catch {
            outcome = .reply(codec.encodeError(error))
        }
        // A oneway call gets nothing back, not even a stream: a WatchPath with "oneway" and "more" would
        // otherwise send updates the client said it will not read.
        guard call.oneway == true else { return outcome }
        switch outcome {
        case .reply, .startWatching, .history: return .noReply
        case .replyAndClose, .noReply, .deferred: return outcome
        }
    }

    private func route(_ call: VarlinkCall, frame: [UInt8], peer: PeerCredentials?) throws(VarlinkError)
        -> CallOutcome
    {
        if call.upgrade == true { throw .invalidParameter(parameter: "upgrade") }
        switch call.method {
        case "org.varlink.service.GetInfo":
            return .reply(
                codec.encodeReply(
                    Methods.InfoReply(
                        vendor: "pathmond", product: "pathmond", version: version,
                        url: "",
                        interfaces: [VarlinkInterfaces.service, VarlinkInterfaces.pathmond])))
        case "org.varlink.service.GetInterfaceDescription":
            let parameters = try decodeParameters(Methods.InterfaceDescriptionParameters.self, from: frame)
            guard let description = VarlinkInterfaces.descriptions[parameters.interface] else {
                throw .interfaceNotFound(interface: parameters.interface)
            }
            return .reply(codec.encodeReply(Methods.InterfaceDescriptionReply(description: description)))
        case "io.pathmond.GetPath", "io.pathmond.WatchPath":
            let parameters = try requirements(from: frame)
            guard call.methodName == "WatchPath", call.more == true else {
                // The commonest call, answered by the writer the streams use rather than JSONEncoder.
                return .reply(StreamedReplyWriter.pathReply(WirePath(hub.path(for: parameters)), continues: false))
            }
            return .startWatching(.path(parameters))
        case "io.pathmond.WatchFlow":
            let wire = try decodeParameters(Methods.FlowParameters.self, from: frame).flow
            let flow: Flow
            do {
                flow = try wire.flow()
            } catch {
                guard case .unknownValue(let field, _) = error else { throw .invalidParameter(parameter: "flow") }
                throw .invalidParameter(parameter: field)
            }
            guard call.more == true else { throw .expectedMore }
            return .startWatching(.flow(flow))
        case "io.pathmond.GetHistory":
            let query = try decodeParameters(Methods.HistoryParameters.self, from: frame).query
            return .history(query, follows: call.more == true)
        case "io.pathmond.ListInterfaces":
            let interfaces = WireInterface.list(hub.interfaces, policy: hub.context.policy)
            return .reply(codec.encodeReply(Methods.InterfacesReply(interfaces: interfaces)))
        case "io.pathmond.ListNetworks":
            return .reply(codec.encodeReply(Methods.NetworksReply(networks: policy.networks())))
        case "io.pathmond.GetStatus":
            let status = WireDaemonStatus(
                version: version, policyFile: policy.policyFile, policyProblem: policy.policyProblem,
                networkNamespace: Self.networkNamespace)
            return .reply(codec.encodeReply(Methods.StatusReply(status: status)))
        case "io.pathmond.SetConstrained":
            let parameters = try decodeParameters(Methods.SetConstrainedParameters.self, from: frame)
            let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
            let constrained = parameters.constrained
            // Off clears the mark: Low Data Mode is a choice to make, not a default to pin.
            return changePolicy(target, by: peer) { $0.isConstrained = constrained ? true : nil }
        case "io.pathmond.SetUltraConstrained":
            let parameters = try decodeParameters(Methods.SetUltraConstrainedParameters.self, from: frame)
            let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
            let ultra = parameters.ultraConstrained
            return changePolicy(target, by: peer) { $0.isUltraConstrained = ultra ? true : nil }
        case "io.pathmond.SetExpensive":
            let parameters = try decodeParameters(Methods.SetExpensiveParameters.self, from: frame)
            let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
            let expensive = parameters.expensive
            return changePolicy(target, by: peer) { $0.isExpensive = expensive }
        case "io.pathmond.SetNetworkName":
            let parameters = try decodeParameters(Methods.SetNetworkNameParameters.self, from: frame)
            let target = try PolicyController.Target(interface: parameters.interface, key: parameters.key)
            let name = parameters.name
            if let name, !NetworkPolicy.isValidName(name) { throw .invalidParameter(parameter: "name") }
            return changePolicy(target, by: peer) { $0.name = name }
        case "io.pathmond.ForgetNetwork":
            let parameters = try decodeParameters(Methods.ForgetNetworkParameters.self, from: frame)
            let codec = codec
            return .deferred { reply in
                policy.forget(parameters.key, by: peer) { result in
                    switch result {
                    case .success: reply(codec.encodeReply(NoParameters()))
                    case .failure(let error): reply(codec.encodeError(error))
                    }
                }
            }
        default:
            guard VarlinkInterfaces.descriptions[call.interface] != nil else {
                throw .interfaceNotFound(interface: call.interface)
            }
            throw .methodNotFound(method: call.method)
        }
    }

    /// The inode of this process's network namespace, for GetStatus: pathctl compares it with its own, as
    /// networkctl does, to warn when it talks to a daemon that watches another namespace's network.
    private static let networkNamespace: Int? = {
        var information = stat()
        guard stat("/proc/self/ns/net", &information) == 0 else { return nil }
        return Int(exactly: information.st_ino)
    }()

    /// GetPath's and WatchPath's optional requirements; none means the system path.
    private func requirements(from frame: [UInt8]) throws(VarlinkError) -> PathParameters {
        let wire: WirePathRequirements?
        do throws(VarlinkDecodingError) {
            wire = try codec.parameters(Methods.PathParameters.self, from: frame)?.requirements
        } catch {
            throw .invalidParameter(parameter: "requirements")
        }
        do {
            return try wire?.parameters() ?? .unrestricted
        } catch {
            guard case .unknownValue(let field, _) = error else { throw .invalidParameter(parameter: "requirements") }
            throw .invalidParameter(parameter: field)
        }
    }

    private func changePolicy(
        _ target: PolicyController.Target, by peer: PeerCredentials?,
        _ change: @escaping @Sendable (inout NetworkPolicy) -> Void
    ) -> CallOutcome {
        let codec = codec
        let policy = policy
        return .deferred { reply in
            policy.change(target, by: peer, change) { result in
                switch result {
                case .success(let network): reply(codec.encodeReply(Methods.NetworkReply(network: network)))
                case .failure(let error): reply(codec.encodeError(error))
                }
            }
        }
    }

    private func decodeParameters<Parameters: Codable & Sendable>(
        _ type: Parameters.Type, from frame: [UInt8]
    ) throws(VarlinkError) -> Parameters {
        do throws(VarlinkDecodingError) {
            guard let parameters = try codec.parameters(type, from: frame) else {
                throw VarlinkDecodingError.invalidField("parameters")
            }
            return parameters
        } catch {
            switch error {
            case .invalidField(let field): throw .invalidParameter(parameter: Self.parameterName(field))
            case .malformed: throw .invalidParameter(parameter: "parameters")
            }
        }
    }

    /// "parameters.interface" names the parameter "interface", as InvalidParameter expects.
    private static func parameterName(_ field: String) -> String {
        field.hasPrefix("parameters.") ? String(field.dropFirst("parameters.".count)) : field
    }
}

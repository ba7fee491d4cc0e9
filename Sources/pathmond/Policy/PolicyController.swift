// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import PolicyStore
import SDEvent
import Synchronization

/// Changes the user's policy: resolves the target network, writes the new policy durably, and only then makes it
/// the one in force, so a reply of success means the setting survives a crash. Writes run one at a time on the
/// daemon's main loop, where every other change to the hub is made: fsync must not stall the calls loop that answers
/// clients, and a policy change is rare enough that kernel events and streams can wait the few milliseconds it takes.
final class PolicyController: Sendable {
    private let hub: PathHub
    private let store: PolicyStore
    private let logger: Logger
    private let loop: SDEventLoop
    /// Who may change policy; replaced when the configuration is reloaded.
    private let authorizer: Mutex<Authorizer>
    /// The policy file's path, for GetStatus.
    let policyFile: String
    /// What went wrong with the policy file, at start or at a later save, for GetStatus and `pathctl status`.
    private let problem: Mutex<String?>

    init(
        hub: PathHub, store: PolicyStore, authorizer: Authorizer, policyFile: String, loadProblem: String?,
        loop: SDEventLoop, logger: Logger
    ) {
        self.hub = hub
        self.loop = loop
        self.store = store
        self.authorizer = Mutex(authorizer)
        self.policyFile = policyFile
        self.problem = Mutex(loadProblem)
        self.logger = logger
        if let warning = authorizer.configurationWarning { logger.warning("\(warning)") }
    }

    /// Puts a new admin group in force (configuration reload); calls already checked keep their verdict.
    func setAuthorizer(_ authorizer: Authorizer) {
        self.authorizer.withLock { $0 = authorizer }
    }

    /// The latest problem with the policy file, if any.
    var policyProblem: String? { problem.withLock { $0 } }

    /// Which network a call is about.
    enum Target: Sendable {
        case interface(String)
        case key(String)

        init(interface: String?, key: String?) throws(VarlinkError) {
            switch (interface, key) {
            case (let interface?, nil): self = .interface(interface)
            case (nil, let key?): self = .key(key)
            default: throw .invalidParameter(parameter: interface == nil ? "interface" : "key")
            }
        }
    }

    /// Applies `change` to the target network's settings; calls `completion` with the network as it now stands.
    func change(
        _ target: Target, by peer: PeerCredentials?, _ change: @escaping @Sendable (inout NetworkPolicy) -> Void,
        completion: @escaping @Sendable (Result<WireNetwork, VarlinkError>) -> Void
    ) {
        loop.execute { [self] in
            completion(
                Result { () throws(VarlinkError) -> WireNetwork in
                    try authorize(peer)
                    let key = try resolve(target)
                    var policy = hub.context.policy
                    change(&policy[key])
                    try save(policy)
                    let cause = PathChangeCause.policy(
                        network: key.description, userID: peer?.userID, setting: policy[key].historyWords)
                    hub.updateContext(cause: cause) { $0.policy = policy }
                    logger.notice("policy changed", metadata: ["network": "\(key)", "setting": "\(policy[key])"])
                    return network(key)
                })
        }
    }

    /// Forgets a network's settings.
    func forget(
        _ keyText: String, by peer: PeerCredentials?,
        completion: @escaping @Sendable (Result<Void, VarlinkError>) -> Void
    ) {
        loop.execute { [self] in
            completion(
                Result { () throws(VarlinkError) in
                    try authorize(peer)
                    guard let key = NetworkKey(keyText) else { throw .invalidNetworkKey(key: keyText) }
                    var policy = hub.context.policy
                    guard policy.forget(key) else { throw .noSuchNetwork(key: keyText) }
                    try save(policy)
                    let cause = PathChangeCause.policy(
                        network: key.description, userID: peer?.userID, setting: "forgotten")
                    hub.updateContext(cause: cause) { $0.policy = policy }
                    logger.notice("policy forgotten", metadata: ["network": "\(key)"])
                })
        }
    }

    /// Every remembered network and every network attached now.
    func networks() -> [WireNetwork] {
        let policy = hub.context.policy
        let attached = Set(hub.interfaces.compactMap { $0.identity?.key })
        return Set(policy.networks.keys).union(attached).sorted().map(network)
    }

    private func resolve(_ target: Target) throws(VarlinkError) -> NetworkKey {
        switch target {
        case .key(let text):
            guard let key = NetworkKey(text) else { throw .invalidNetworkKey(key: text) }
            return key
        case .interface(let name):
            guard let status = hub.interfaces.first(where: { $0.link.name == name }) else {
                throw .noSuchInterface(interface: name)
            }
            guard let identity = status.identity else { throw .networkNotIdentified(interface: name) }
            return identity.key
        }
    }

    /// Root or the admin group. Checked here, on the main loop, one call at a time: the group database may be
    /// remote (LDAP), and a slow answer must not stall the calls loop that answers other clients.
    private func authorize(_ peer: PeerCredentials?) throws(VarlinkError) {
        if let refusal = authorizer.withLock({ $0 }).refusal(for: peer) {
            throw .pathmondPermissionDenied(reason: refusal)
        }
    }

    private func save(_ policy: Policy) throws(VarlinkError) {
        do {
            // A file damaged since start is kept aside by the save; say so, as at start.
            let report = try store.save(policy)
            DaemonCounters.bump(hub.counters.policyWrites)
            if let report {
                logger.error("policy file damaged: \(report)")
                problem.withLock { $0 = "\(report)" }
            }
        } catch {
            logger.error("cannot save the policy: \(error)")
            throw .policyNotSaved(reason: "\(error)")
        }
    }

    private func network(_ key: NetworkKey) -> WireNetwork {
        let setting = hub.context.policy[key]
        let interfaces = hub.interfaces.filter { $0.identity?.key == key }
        let displayName = NetworkNaming.displayName(
            of: interfaces.first?.identity ?? NetworkIdentity(key: key),
            gateway: interfaces.first.flatMap(NetworkNaming.gateway), policy: hub.context.policy)
        return WireNetwork(
            key: key.description, displayName: displayName,
            constrained: setting.isConstrained, expensive: setting.isExpensive,
            interfaces: interfaces.map(\.link.name), name: setting.name, ultraConstrained: setting.isUltraConstrained)
    }
}

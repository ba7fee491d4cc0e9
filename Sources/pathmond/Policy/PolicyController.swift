import Locking
// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import PolicyStore
import SDEvent

/// Changes the user's policy: resolves the target network, writes the new policy durably, and only then makes it
/// the one in force, so a reply of success means the setting survives a crash. The controller owns the policy: it
/// changes its own copy, one change at a time on a loop of its own (`PolicyController.startWorker()`), since the
/// group look-up (NSS, which may ask LDAP) and fsync may wait and the main loop may not; once the file has it, the
/// new policy is pushed to the hub on the main loop, the one place the hub changes, and only then is the caller
/// answered (a GetPath after the reply sees it). Everything else reads the hub's copy.
final class PolicyController: Sendable {
    private let hub: PathHub
    private let store: PolicyStore
    private let logger: Logger
    /// The policy loop: where changes are made and saved.
    private let loop: SDEventLoop
    /// The main loop: where the hub takes the new policy and the reply goes.
    private let hubLoop: SDEventLoop
    /// The policy in force, as last saved: the one copy that changes.
    private let policy: LoopBound<Policy>
    /// Who may change policy; replaced when the configuration is reloaded.
    private let authorizer: Locked<Authorizer>
    /// The policy file's path, for GetStatus.
    let policyFile: String
    /// What went wrong with the policy file, at start or at a later save, for GetStatus and `pathctl status`.
    private let problem: Locked<String?>

    /// Starts from the policy the hub was made with (the one loaded at start).
    init(
        hub: PathHub, store: PolicyStore, authorizer: Authorizer, policyFile: String, loadProblem: String?,
        loop: SDEventLoop, hubLoop: SDEventLoop, logger: Logger
    ) {
        self.hub = hub
        self.loop = loop
        self.hubLoop = hubLoop
        self.policy = LoopBound(hub.context.policy, on: loop)
        self.store = store
        self.authorizer = Locked(authorizer)
        self.policyFile = policyFile
        self.problem = Locked(loadProblem)
        self.logger = logger
        if let warning = authorizer.configurationWarning { logger.warning("\(warning)") }
    }

    /// The loop policy changes run on: a thread of its own, named for `ps -L`.
    static func startWorker() throws(SDEventError) -> SDEventLoop {
        try SDEventLoop.startedOnNewThread(name: "pathmond-policy")
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

    /// Applies `change` to the target network's settings; calls `completion`, on the main loop, with the network
    /// as it now stands.
    func change(
        _ target: Target, by peer: PeerCredentials?, _ change: @escaping @Sendable (inout NetworkPolicy) -> Void,
        completion: @escaping @Sendable (Result<WireNetwork, VarlinkError>) -> Void
    ) {
        commit(
            by: peer,
            { [self] policy throws(VarlinkError) in
                let key = try resolve(target)
                change(&policy[key])
                return key
            },
            setting: { key, policy in policy[key].historyWords },
            then: { [self] key, policy in
                var metadata = JournalRecord.policyChanged.metadata([
                    .cause: PathChangeCause.Kind.policy.rawValue, .network: key.description,
                    .expensive: JournalRecord.yesNoAuto(policy[key].isExpensive),
                    .constrained: JournalRecord.yesNoAuto(policy[key].isConstrained),
                ])
                metadata["network"] = "\(key)"
                metadata["setting"] = "\(policy[key])"
                logger.notice("policy changed", metadata: metadata)
                return network(key)
            }, completion: completion)
    }

    /// Forgets a network's settings; calls `completion` on the main loop.
    func forget(
        _ keyText: String, by peer: PeerCredentials?,
        completion: @escaping @Sendable (Result<Void, VarlinkError>) -> Void
    ) {
        commit(
            by: peer,
            { policy throws(VarlinkError) in
                guard let key = NetworkKey(keyText) else { throw .invalidNetworkKey(key: keyText) }
                guard policy.forget(key) else { throw .noSuchNetwork(key: keyText) }
                return key
            },
            setting: { _, _ in "forgotten" },
            then: { [self] key, _ in
                var metadata = JournalRecord.policyChanged.metadata([
                    .cause: PathChangeCause.Kind.policy.rawValue, .network: key.description,
                ])
                metadata["network"] = "\(key)"
                logger.notice("policy forgotten", metadata: metadata)
            }, completion: completion)
    }

    /// The one way the policy changes. On the policy loop: authorize the caller, `edit` a copy of the policy (it
    /// names the network it changed), save it, and keep it. Then on the main loop: push it to the hub, with the
    /// network's new `setting` as the history's cause, and reply with what `then` makes of it.
    private func commit<Reply: Sendable>(
        by peer: PeerCredentials?, _ edit: @escaping @Sendable (inout Policy) throws(VarlinkError) -> NetworkKey,
        setting: @escaping @Sendable (NetworkKey, Policy) -> String,
        then reply: @escaping @Sendable (NetworkKey, Policy) -> Reply,
        completion: @escaping @Sendable (Result<Reply, VarlinkError>) -> Void
    ) {
        loop.execute { [self] in
            let saved = Result { () throws(VarlinkError) -> (NetworkKey, Policy) in
                try authorize(peer)
                var changed = policy.value
                let key = try edit(&changed)
                try save(changed)
                policy.value = changed
                return (key, changed)
            }
            hubLoop.execute { [self] in
                completion(
                    saved.map { key, policy in
                        let cause = PathChangeCause.policy(
                            network: key.description, userID: peer?.userID, setting: setting(key, policy))
                        hub.updateContext(cause: cause) { $0.policy = policy }
                        return reply(key, policy)
                    })
            }
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

    /// Root or the admin group. Checked here, on the policy loop, one call at a time: the group database may be
    /// remote (LDAP), and a slow answer must not stall the main loop.
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
                logger.error("policy file damaged: \(report)", metadata: JournalRecord.policyFileDamaged.metadata())
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

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Decides who may change policy: root, and members of the configured admin group. Anyone may read.
struct Authorizer: Sendable {
    /// The group named by `[policy] admin-group`, if any.
    let adminGroup: String?

    /// A sentence for the log at start when the configuration names a group this machine does not have: only root
    /// can change policy then, and the administrator should hear it before a user does.
    var configurationWarning: String? {
        guard let adminGroup, Self.groupID(named: adminGroup) == nil else { return nil }
        return "admin-group \(adminGroup) does not exist on this system: only root may change policy until it does"
    }

    /// Nil when allowed; otherwise the reason, in words for the caller.
    func refusal(for peer: PeerCredentials?) -> String? {
        guard let peer else { return "the caller's credentials are unknown" }
        if peer.userID == 0 { return nil }
        guard let adminGroup else { return "only root may change policy (no admin-group is configured)" }
        guard let groupID = Self.groupID(named: adminGroup) else {
            return "only root may change policy (the admin group \(adminGroup) does not exist)"
        }
        if peer.groupID == groupID || peer.supplementaryGroups.contains(groupID) { return nil }
        return "only root and members of \(adminGroup) may change policy"
    }

    private static func groupID(named name: String) -> UInt32? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        // A large group needs a large buffer: grow it on ERANGE rather than calling the group missing.
        var size = 16 * 1024
        while size <= 16 * 1024 * 1024 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
            if status == ERANGE {
                size *= 4
                continue
            }
            guard status == 0, result != nil else { return nil }
            return group.gr_gid
        }
        return nil
    }
}

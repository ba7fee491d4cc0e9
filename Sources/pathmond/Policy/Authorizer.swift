#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's word on who is at the other end of a Unix socket (SO_PEERCRED), taken when the client connected.
struct PeerCredentials: Sendable, Hashable {
    var processID: Int32
    var userID: UInt32
    var groupID: UInt32
}

/// Decides who may change policy: root, and members of the configured admin group. Anyone may read.
struct Authorizer: Sendable {
    /// The group named by `[policy] admin-group`, if any.
    let adminGroup: String?

    /// Nil when allowed; otherwise the reason, in words for the caller.
    func refusal(for peer: PeerCredentials?) -> String? {
        guard let peer else { return "the caller's credentials are unknown" }
        if peer.userID == 0 { return nil }
        guard let adminGroup else { return "only root may change policy (no admin-group is configured)" }
        guard let groupID = Self.groupID(named: adminGroup) else {
            return "only root may change policy (the admin group \(adminGroup) does not exist)"
        }
        if peer.groupID == groupID || Self.groups(ofUser: peer.userID).contains(groupID) { return nil }
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

    /// The user's groups from the user database (primary and supplementary), as login would set them.
    private static func groups(ofUser userID: UInt32) -> [UInt32] {
        var user = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        var status = getpwuid_r(userID, &user, &buffer, buffer.count, &result)
        while status == ERANGE && buffer.count < 16 * 1024 * 1024 {
            buffer = [CChar](repeating: 0, count: buffer.count * 4)
            status = getpwuid_r(userID, &user, &buffer, buffer.count, &result)
        }
        guard status == 0, result != nil else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user.pw_name, user.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(user.pw_name, user.pw_gid, &groups, &count) >= 0 else { return [user.pw_gid] }
        }
        return Array(groups.prefix(Int(count)))
    }
}

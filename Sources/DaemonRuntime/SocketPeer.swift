// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a client's socket, as the kernel recorded it at connect.
package enum SocketPeer {
    /// SO_PEERCRED and SO_PEERGROUPS; nil when the socket cannot say (then the client holds no policy rights).
    package static func credentials(of descriptor: Int32) -> PeerCredentials? {
        var credentials = KernelPeerCredentials()
        var length = socklen_t(MemoryLayout<KernelPeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(
            processID: credentials.processID, userID: credentials.userID, groupID: credentials.groupID,
            supplementaryGroups: supplementaryGroups(of: descriptor))
    }

    /// The supplementary groups the client held at connect. A client with more than `capacity` gets ERANGE and
    /// counts by its primary group alone, which denies, never grants.
    private static func supplementaryGroups(of descriptor: Int32) -> [UInt32] {
        var groups = [UInt32](repeating: 0, count: groupCapacity)
        var length = socklen_t(groupCapacity * MemoryLayout<UInt32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, peerGroupsOption, &groups, &length) == 0 else { return [] }
        return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size))
    }

    /// SO_PEERGROUPS from <asm-generic/socket.h> (Linux 4.13), which the Glibc module does not export.
    private static let peerGroupsOption: Int32 = 59
    /// Far more groups than any login gives a user (login sessions have tens); 4 KiB read once per connection.
    private static let groupCapacity = 1024
}

/// `struct ucred` as SO_PEERCRED fills it (pid, uid, gid: three 32-bit fields); glibc hides its own declaration
/// behind _GNU_SOURCE, which the Glibc module does not define.
package struct KernelPeerCredentials {
    package var processID: Int32 = 0
    package var userID: UInt32 = 0
    package var groupID: UInt32 = 0
}

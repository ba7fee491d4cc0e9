// SPDX-License-Identifier: Apache-2.0
/// The kernel's word on who is at the other end of a Unix socket (SO_PEERCRED and SO_PEERGROUPS), taken when the
/// client connected.
package struct PeerCredentials: Sendable, Hashable {
    package var processID: Int32
    package var userID: UInt32
    package var groupID: UInt32
    /// The supplementary groups the client process held when it connected (SO_PEERGROUPS); empty when the
    /// kernel could not say. The process's own groups, not the user database's: a process that dropped a group
    /// (setpriv --clear-groups, a service with SupplementaryGroups= unset) is not a member, one that was given it
    /// is.
    package var supplementaryGroups: [UInt32] = []

    package init(processID: Int32, userID: UInt32, groupID: UInt32, supplementaryGroups: [UInt32] = []) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
        self.supplementaryGroups = supplementaryGroups
    }
}

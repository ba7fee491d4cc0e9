// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

// Admin-group membership from SO_PEERGROUPS, and the warning for a group the system lacks (issue 10).

@Test func membershipIsTheCallersGroupsNotTheUserDatabase() {
    let authorizer = Authorizer(adminGroup: "adm")
    // nobody is in no group by the user database; a process of nobody's holding adm (gid 4) is a member.
    let given = PeerCredentials(processID: 1, userID: 65534, groupID: 65534, supplementaryGroups: [4])
    #expect(authorizer.refusal(for: given) == nil)
    let without = PeerCredentials(processID: 1, userID: 65534, groupID: 65534, supplementaryGroups: [])
    #expect(authorizer.refusal(for: without) == "only root and members of adm may change policy")
    let primary = PeerCredentials(processID: 1, userID: 65534, groupID: 4)
    #expect(authorizer.refusal(for: primary) == nil)
}

@Test func aMissingAdminGroupIsWarnedAbout() {
    #expect(Authorizer(adminGroup: "pathmond-no-such-group").configurationWarning?.contains("does not exist") == true)
    #expect(Authorizer(adminGroup: "adm").configurationWarning == nil)
    #expect(Authorizer(adminGroup: nil).configurationWarning == nil)
}

// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// What decided isExpensive, for every combination of the detections and the user's setting: the user first, then
/// the interface's class, a hotspot lease, NetworkManager's Metered.
@Suite struct ExpensiveSourceTests {
    static let key = NetworkIdentity.wired(gateway: "02:00:00:00:00:01").key

    @Test(arguments: [nil, true, false] as [Bool?], [false, true])
    func provenanceFollowsPrecedence(setting: Bool?, cellular: Bool) throws {
        for (lease, networkManager) in [(false, false), (true, false), (false, true), (true, true)] {
            let link = cellular ? makeModem(2, "eth0") : makeLink(2, "eth0")
            let state = usableState([usableIPv4(link, host: 10)])
            var policy = Policy()
            policy[Self.key].isExpensive = setting
            var context = NetworkContext(
                identities: [2: .wired(gateway: "02:00:00:00:00:01")], meteredInterfaces: lease ? [2] : [],
                policy: policy)
            context.networkManagerMetered = networkManager ? [2] : []
            let status = try #require(
                PathEvaluator().interfaces(in: state, context: context).first { $0.link.index == 2 })
            let expected: ExpensiveSource? =
                setting != nil
                ? .user : cellular ? .interfaceClass : lease ? .dhcpLease : networkManager ? .networkManager : nil
            #expect(status.expensiveSource == expected, "lease \(lease), NetworkManager \(networkManager)")
            #expect(status.isExpensive == (setting ?? (cellular || lease || networkManager)))
        }
    }
}

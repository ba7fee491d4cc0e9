// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite struct NetworkKeyTests {
    static let awkwardSSIDs: [[UInt8]] = [
        [],
        Array("Home Net".utf8),
        Array(repeating: 0x41, count: 32),
        [0xff, 0x00, 0x80, 0x25, 0x3a],
        Array("\"quoted\" 100% café".utf8),
        Array("a%20b".utf8),
    ]

    @Test(arguments: awkwardSSIDs)
    func wifiKeysAreLossless(ssid: [UInt8]) throws {
        let key = NetworkIdentity.wifi(ssid: ssid).key
        #expect(key.kind == .wifi)
        #expect(key.ssid == ssid)
        let parsed = try #require(NetworkKey(key.description))
        #expect(parsed == key)
        #expect(NetworkIdentity(key: parsed) == .wifi(ssid: ssid))
        #expect(key.description.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }, "keys are printable: \(key)")
    }

    @Test func distinctSSIDsGetDistinctKeys() {
        let keys = Set(Self.awkwardSSIDs.map { NetworkIdentity.wifi(ssid: $0).key })
        #expect(keys.count == Self.awkwardSSIDs.count)
        #expect(NetworkIdentity.wifi(ssid: Array("a b".utf8)).key.description == "wifi:a%20b")
        #expect(NetworkIdentity.wifi(ssid: Array("a%20b".utf8)).key.description == "wifi:a%2520b")
    }

    @Test func displayNamesAreReadable() {
        #expect(NetworkIdentity.wifi(ssid: Array("Café".utf8)).displayName == "Wi-Fi \"Café\"")
        #expect(NetworkIdentity.wifi(ssid: [0xff, 0x41]).displayName == "Wi-Fi \"%FFA\"")
        #expect(NetworkIdentity.wired(gateway: "02:AA:00:00:00:01").key.description == "wired:02:aa:00:00:00:01")
    }

    @Test(arguments: [
        "", "wifi", "lte:x", "wired:", "cellular:", "wifi:%4", "wifi:%zz", "wifi:a%61",
        "wifi:%41%42" + String(repeating: "A", count: 31), "wifi:a b",
    ])
    func malformedKeysAreRefused(text: String) {
        #expect(NetworkKey(text) == nil)
    }
}

@Suite struct PolicyEvaluationTests {
    let state = KernelState(
        KernelSnapshot(
            links: [makeLoopback(), makeLink(2, "eth0"), makeWifi(3)],
            addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "198.51.100.10")],
            routes: [makeRoute(2, via: "192.0.2.1", metric: 100), makeRoute(3, via: "198.51.100.1", metric: 600)],
            neighbours: [Neighbour(interfaceIndex: 2, address: ip("192.0.2.1"), linkLayerAddress: "02:00:00:00:00:01")]
        ))
    let home = NetworkIdentity.wifi(ssid: Array("Home".utf8))
    let tether = NetworkIdentity.wired(gateway: "02:00:00:00:00:01")

    @Test func wiredIdentityIsTheGatewaysLinkLayerAddress() {
        let eth0 = PathEvaluator().interfaces(in: state).first { $0.link.name == "eth0" }
        #expect(eth0?.identity == tether)
    }

    @Test func constrainedFollowsTheNetworkNotTheInterface() {
        var policy = Policy()
        policy[tether.key].isConstrained = true
        let context = NetworkContext(identities: [3: home], policy: policy)
        let path = PathEvaluator().path(in: state, context: context)
        #expect(path.isConstrained)
        #expect(path.availableInterfaces.map(\.isConstrained) == [true, false])
        // The same port on another network (another gateway) is not constrained.
        var moved = state
        moved.apply(
            .neighbourChanged(
                Neighbour(interfaceIndex: 2, address: ip("192.0.2.1"), linkLayerAddress: "02:00:00:00:00:99")))
        #expect(!PathEvaluator().path(in: moved, context: context).isConstrained)
    }

    @Test(arguments: [nil, true, false] as [Bool?], [false, true])
    func explicitExpensiveWinsOverDetection(setting: Bool?, metered: Bool) {
        var policy = Policy()
        policy[tether.key].isExpensive = setting
        let context = NetworkContext(meteredInterfaces: metered ? [2] : [], policy: policy)
        let path = PathEvaluator().path(in: state, context: context)
        #expect(path.isExpensive == (setting ?? metered))
        #expect(path.availableInterfaces.first?.isExpensive == (setting ?? metered))
    }

    @Test func configuredNetworkNamesAnInterface() throws {
        let configuration = try Configuration.parse(
            """
            [interface wlan*]
            network = wifi:Home

            [policy]
            admin-group = netadmins
            """)
        #expect(configuration.adminGroup == "netadmins")
        var policy = Policy()
        policy[home.key].isConstrained = true
        let evaluator = PathEvaluator(classifier: configuration.classifier)
        let wlan = evaluator.interfaces(in: state, context: NetworkContext(policy: policy)).first { $0.link.index == 3 }
        #expect(wlan?.identity == home)
        #expect(wlan?.isConstrained == true)
    }

    @Test func trackerRepublishesOnPolicyChangeOnly() {
        var tracker = PathTracker(state: state, context: NetworkContext(identities: [3: home]))
        // Wi-Fi is not primary: the path stays unconstrained, but its Wi-Fi entry says constrained.
        let wifiMarked = tracker.updateContext { $0.policy[home.key].isConstrained = true }
        #expect(wifiMarked?.isConstrained == false)
        #expect(wifiMarked?.availableInterfaces.last?.isConstrained == true)
        let changed = tracker.updateContext { $0.policy[tether.key].isConstrained = true }
        #expect(changed?.isConstrained == true)
        #expect(tracker.updateContext { $0.policy[tether.key].isConstrained = true } == nil)
        #expect(tracker.updateContext { $0.policy.forget(tether.key) }?.isConstrained == false)
    }

    @Test(arguments: [
        ("[interface x]\nnetwork = lte:1", ConfigurationError.invalidNetworkKey(line: 2, value: "lte:1")),
        ("[policy]\nadmin-group = -x", .invalidGroupName(line: 2, value: "-x")),
        ("[policy]\nadmin-group = a\nadmin-group = b", .duplicateKey(line: 3, key: "admin-group", firstLine: 2)),
    ])
    func badPolicySettingsNameTheLine(text: String, error: ConfigurationError) {
        #expect(throws: error) { try Configuration.parse(text) }
    }
}

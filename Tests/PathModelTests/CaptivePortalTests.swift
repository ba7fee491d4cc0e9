// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Captive portals in the model: an interface's state and URI from the hints, the path's from the interfaces its
/// traffic takes, tunnels over a captive network, and the gates.
@Suite struct CaptivePortalTests {
    // eth0 wired (IPv4), wlan0 Wi-Fi (IPv4 and IPv6).
    static let state = makeState(
        [makeLoopback(), makeLink(2, "eth0"), makeWifi(3)],
        addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "10.20.0.57"), makeAddress(3, "2001:db8:3::57")],
        routes: [makeRoute(2, via: "192.0.2.1"), makeRoute(3, via: "10.20.0.1"), makeRoute(3, via: "fe80::1")])
    static let uri = "https://portal.hotel.example/api/capport"

    static func path(
        _ hints: [Int32: CaptivePortalHint], state: KernelState = state, family: PathParameters.FamilyRequirement = .any
    )
        -> Path
    {
        var context = NetworkContext()
        context.captivePortals = hints
        return PathEvaluator().path(in: state, context: context, parameters: PathParameters(family: family))
    }

    /// Every state of each interface: the path is captive when any family's carrier is, else the preferred
    /// interface's state; the URI is that interface's.
    @Test(arguments: CaptivePortal.allCases, CaptivePortal.allCases)
    func thePathTakesItsCarriersStates(wired: CaptivePortal, wifi: CaptivePortal) {
        let path = Self.path([2: CaptivePortalHint(state: wired), 3: CaptivePortalHint(state: wifi, uri: Self.uri)])
        #expect(path.availableInterfaces.map(\.captivePortal) == [wired, wifi])
        // eth0 carries IPv4, wlan0 IPv6: both are carriers.
        let expected: CaptivePortal = wired == .captive || wifi == .captive ? .captive : wired
        #expect(path.captivePortal == expected)
        #expect(path.captivePortalURI == (wired != .captive && wifi == .captive ? Self.uri : nil))
        #expect(SystemPolicyGate.Verdict(path).isUnmetered == (expected != .captive))
        #expect(SystemPolicyGate.Verdict(path).isOnline)
    }

    @Test func anAnnouncedURIAloneLeavesTheStateUnknown() {
        let path = Self.path([2: CaptivePortalHint(uri: Self.uri)])
        #expect(path.captivePortal == .unknown && path.captivePortalURI == Self.uri)
        #expect(SystemPolicyGate.Verdict(path).isUnmetered)
        let open = Self.path([2: CaptivePortalHint(uri: CaptivePortalHint.unrestricted)])
        #expect(open.captivePortal == .open && open.captivePortalURI == nil)
        #expect(Self.path([:]).captivePortal == .unknown)
    }

    @Test func aFamilyThatAvoidsTheCaptiveNetworkIsNotCaptive() {
        let hints: [Int32: CaptivePortalHint] = [3: CaptivePortalHint(state: .captive, uri: Self.uri)]
        #expect(Self.path(hints, family: .ipv6).captivePortal == .captive)
        // IPv4 alone: eth0 carries it, wlan0 is only listed.
        let v4 = Self.path(hints, family: .ipv4)
        #expect(v4.captivePortal == .unknown)
        #expect(v4.availableInterfaces.map(\.captivePortal) == [.unknown, .captive])
    }

    @Test func aTunnelOverACaptiveNetworkIsCaptive() {
        let state = makeState(
            [makeLoopback(), makeWifi(3), makeTunnel(5)],
            addresses: [makeAddress(3, "10.20.0.57"), makeAddress(5, "10.5.0.2")],
            routes: [makeRoute(3, via: "10.20.0.1", metric: 600), makeRoute(5, via: nil, metric: 50)])
        let path = Self.path([3: CaptivePortalHint(state: .captive, uri: Self.uri)], state: state)
        #expect(path.availableInterfaces.map(\.name) == ["wlan0", "wg0"])
        #expect(path.availableInterfaces.map(\.captivePortal) == [.captive, .captive])
        #expect(path.captivePortal == .captive && path.captivePortalURI == Self.uri)
    }

    @Test func anUnsatisfiedPathSaysNothingOfPortals() {
        let path = Self.path([2: CaptivePortalHint(state: .captive)], state: makeState([makeLoopback()]))
        #expect(path.captivePortal == .unknown && path.captivePortalURI == nil)
    }

    @Test(arguments: [
        "", " ", "https://a b/", "https://a/\u{7f}", "https://é.example/", String(repeating: "a", count: 256),
    ])
    func implausibleURIsAreNotShown(uri: String) {
        #expect(!CaptivePortalHint.isValidURI(uri))
        #expect(Self.path([2: CaptivePortalHint(state: .captive, uri: uri)]).captivePortalURI == nil)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The kernel's tables live in one box that copies share (`CopyOnWrite`): a copy must keep what it saw while the
/// other changes, whichever of the two changes, and equality must still compare the tables.
@Suite struct KernelStateCopyTests {
    @Test(arguments: [1, 2, 3])
    func aCopyKeepsWhatItSawWhileTheOtherChanges(seed: UInt64) {
        var generator = RandomKernel(random: SplitMix64(seed: seed))
        var state = KernelState()
        // The same events applied to a state never copied: equal tables, never a shared box.
        var twin = KernelState()
        for step in 0..<400 {
            let copy = state
            let seen = copy.snapshot
            let event = generator.event(after: state)
            twin.apply(event)
            // Either side changes: the original (the copy's box is shared) or a second copy.
            if step % 2 == 0 {
                state.apply(event)
                #expect(copy.snapshot == seen)
            } else {
                var other = copy
                other.apply(event)
                #expect(copy.snapshot == seen)
                state = other
            }
            #expect(twin == state)
        }
    }

    @Test func statesCompareByTheirTablesNotTheirBoxes() {
        let link = makeLink(2, "eth0")
        var first = KernelState()
        var second = KernelState()
        first.apply(.linkChanged(link))
        #expect(first != second)
        second.apply(.linkChanged(link))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        var third = first
        third.apply(.linkRemoved(index: 2))
        #expect(third != first)
        #expect(first == second)
    }

    /// The network context lives in a box too: a copy keeps its fields while the other changes any of them.
    @Test func aContextCopyKeepsItsFieldsWhileTheOtherChanges() {
        var context = NetworkContext(identities: [3: .wifi(ssid: Array("home".utf8))], meteredInterfaces: [4])
        let copy = context
        func changeEveryField(_ context: inout NetworkContext) {
            context.identities[5] = .cellular(subscriber: "sim")
            context.meteredInterfaces.insert(6)
            context.networkManagerMetered = [7]
            context.roamingInterfaces.insert(8)
            context.linkQualities[2] = LinkQuality(source: .ethernet, speedMbps: 1000)
        }
        changeEveryField(&context)
        #expect(copy.identities == [3: .wifi(ssid: Array("home".utf8))])
        #expect(copy.meteredInterfaces == [4])
        #expect(copy.networkManagerMetered.isEmpty && copy.roamingInterfaces.isEmpty && copy.linkQualities.isEmpty)
        #expect(copy != context)
        var again = copy
        changeEveryField(&again)
        #expect(again == context)
        #expect(again.hashValue == context.hashValue)
    }

    /// A link's fields live in a box too: a copy keeps every field while the other changes any of them, links
    /// compare and hash by their fields whatever box holds them, and a change of state alone is told apart.
    @Test func aLinkCopyKeepsItsFieldsWhileTheOtherChanges() {
        var link = makeLink(2, "eth0", linkKind: "veth")
        let copy = link
        func changeEveryField(_ link: inout Link) {
            link.index = 3
            link.name = "wlan0"
            link.flags = []
            link.operState = .down
            link.linkKind = nil
            link.hardwareType = HardwareType.none
            link.hardwareAddress = "02:00:00:00:00:01"
            link.device = DeviceFacts(deviceType: "wlan", driver: "iwlwifi")
            link.tunnel = TunnelEndpoints(remotes: [IPAddress("192.0.2.1")!])
        }
        changeEveryField(&link)
        #expect(copy == makeLink(2, "eth0", linkKind: "veth"))
        #expect(copy.hashValue == makeLink(2, "eth0", linkKind: "veth").hashValue)
        #expect(copy != link)
        var again = copy
        changeEveryField(&again)
        #expect(again == link)
        #expect(again.hashValue == link.hashValue)

        var down = copy
        down.flags = []
        down.operState = .down
        #expect(down != copy)
        #expect(down.differsOnlyInState(from: copy))
        #expect(copy.differsOnlyInState(from: copy))
        var renamed = down
        renamed.name = "eth1"
        #expect(!renamed.differsOnlyInState(from: copy))
        #expect(copy.name == "eth0" && down.name == "eth0")
    }

    /// A change's cause lives in a box too: a copy keeps every field while the other changes any of them, and
    /// causes compare and hash by their fields whatever box holds them.
    @Test func aCauseCopyKeepsItsFieldsWhileTheOtherChanges() {
        var cause = PathChangeCause.kernel([.linkChanged(makeLink(2, "eth0"))])
        let copy = cause
        func changeEveryField(_ cause: inout PathChangeCause) {
            cause.kind = .policy
            cause.kernelTables = [.route]
            cause.interfaceIndices = [3]
            cause.interfaces = ["wlan0"]
            cause.detection = .wifi
            cause.network = "wifi:home"
            cause.userID = 1000
            cause.detail = "constrained"
        }
        changeEveryField(&cause)
        let seen = PathChangeCause(kind: .kernel, kernelTables: [.link], interfaceIndices: [2], interfaces: ["eth0"])
        #expect(copy == seen)
        #expect(copy != cause)
        var again = copy
        changeEveryField(&again)
        #expect(again == cause)
        #expect(again.hashValue == cause.hashValue)
        again.detail = nil
        #expect(again != cause)
    }

    /// A path lives in a box too: a copy keeps every field while the other changes any of them (an interface of
    /// its array changed in place included), and paths compare and hash by their fields whatever box holds them.
    @Test func aPathCopyKeepsItsFieldsWhileTheOtherChanges() {
        let wired = PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: false)
        func made() -> Path {
            Path(
                status: .satisfied, availableInterfaces: [wired], supportsIPv4: true,
                gateways: [IPAddress("192.0.2.1")!])
        }
        var path = made()
        let copy = path
        func changeEveryField(_ path: inout Path) {
            path.status = .unsatisfied
            path.unsatisfiedReason = .noCarrier
            path.availableInterfaces[0].name = "eth1"
            path.isExpensive = true
            path.isConstrained = true
            path.isUltraConstrained = true
            path.isRoaming = true
            path.captivePortal = .captive
            path.captivePortalURI = "https://portal.example/api"
            path.linkQuality = LinkQuality(source: .ethernet, speedMbps: 100)
            path.supportsIPv4 = false
            path.supportsIPv6 = true
            path.supportsDNS = true
            path.gateways = []
        }
        changeEveryField(&path)
        #expect(copy == made())
        #expect(copy.hashValue == made().hashValue)
        #expect(copy.availableInterfaces == [wired])
        #expect(copy != path)
        var again = copy
        changeEveryField(&again)
        #expect(again == path)
        #expect(again.hashValue == path.hashValue)
        again.gateways = [IPAddress("192.0.2.9")!]
        #expect(again != path)
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// The attributes of issue 26 on the wire: every one optional, so that old clients and old servers keep working.
@Suite struct WireAttributesTests {
    let codec = VarlinkCodec()

    static let satellitePath = Path(
        status: .satisfied,
        availableInterfaces: [
            PathInterface(
                index: 3, name: "sat0", kind: .other, isExpensive: false, isConstrained: true,
                isUltraConstrained: true)
        ],
        isConstrained: true, supportsIPv4: true, gateways: [IPAddress("198.51.100.1")!], isUltraConstrained: true)

    func roundTrip(_ path: Path) throws -> Path? {
        let bytes = codec.encodeReply(Methods.PathReply(path: WirePath(path)), continues: true)
        let reply = try codec.decode(VarlinkReply<Methods.PathReply>.self, from: Array(bytes.dropLast()))
        return try reply.parameters?.path.path()
    }

    @Test func anUltraConstrainedPathRoundTrips() throws {
        #expect(try roundTrip(Self.satellitePath) == Self.satellitePath)
        let text = String(
            decoding: StreamedReplyWriter.pathReply(WirePath(Self.satellitePath)).dropLast(), as: UTF8.self)
        #expect(text.contains(#""isUltraConstrained":true"#))
    }

    /// What a server older than the fields sends: no isUltraConstrained anywhere.
    @Test func aReplyFromAnOlderServerDecodes() throws {
        let old = #"""
            {"parameters":{"path":{"availableInterfaces":[{"index":2,"isConstrained":false,"isExpensive":false,\#
            "name":"eth0","type":"wired"}],"gateways":[],"isConstrained":false,"isExpensive":false,\#
            "status":"satisfied","supportsDNS":true,"supportsIPv4":true,"supportsIPv6":false}}}
            """#
        let reply = try codec.decode(VarlinkReply<Methods.PathReply>.self, from: Array(old.utf8))
        let path = try #require(try reply.parameters?.path.path())
        #expect(!path.isUltraConstrained)
        #expect(path.availableInterfaces.map(\.isUltraConstrained) == [false])
    }

    /// What an older client sends, and what it decodes from a new server: fields it does not know are ignored.
    @Test func olderClientsSendNoOptInAndIgnoreTheNewFields() throws {
        let requirements = try codec.decode(WirePathRequirements.self, from: Array(#"{"prohibitExpensive":true}"#.utf8))
        #expect(try requirements.parameters() == PathParameters(prohibitsExpensive: true))
        struct OldPath: Codable { var status: String; var isConstrained: Bool }
        struct OldReply: Codable { var path: OldPath }
        let bytes = codec.encodeReply(Methods.PathReply(path: WirePath(Self.satellitePath)), continues: false)
        let old = try codec.decode(VarlinkReply<OldReply>.self, from: Array(bytes.dropLast()))
        #expect(old.parameters?.path.isConstrained == true)
    }

    @Test func theOptInRoundTripsAndIsLeftOutWhenOff() throws {
        let opted = PathParameters(prohibitsExpensive: true, allowsUltraConstrained: true)
        let wire = WirePathRequirements(opted)
        #expect(wire.allowUltraConstrained == true)
        #expect(try wire.parameters() == opted)
        #expect(WirePathRequirements(.unrestricted).allowUltraConstrained == nil)
        #expect(try WirePathRequirements(.system).parameters() == .system)
    }

    @Test func roamingRoundTripsAndItsOptInIsLeftOutWhenOff() throws {
        var path = Self.satellitePath
        path.isRoaming = true
        path.availableInterfaces[0].isRoaming = true
        #expect(try roundTrip(path) == path)
        let parameters = PathParameters(prohibitsRoaming: true)
        #expect(WirePathRequirements(parameters).prohibitRoaming == true)
        #expect(try WirePathRequirements(parameters).parameters() == parameters)
        #expect(WirePathRequirements(.unrestricted).prohibitRoaming == nil)
        var wire = WirePath(.unsatisfied(.onlyRoamingInterfaces))
        #expect(wire.unsatisfiedReason == "onlyRoamingInterfaces")
        wire.isRoaming = nil
        #expect(try wire.path() == .unsatisfied(.onlyRoamingInterfaces))
        #expect(VarlinkInterfaces.pathmondDescription.contains("prohibitRoaming: ?bool"))
    }

    @Test func captivePortalsRoundTripAndUnknownStatesReadAsUnknown() throws {
        var path = Self.satellitePath
        path.captivePortal = .captive
        path.captivePortalURI = "https://portal.example/api"
        path.availableInterfaces[0].captivePortal = .captive
        #expect(try roundTrip(path) == path)
        var wire = WirePath(path)
        #expect(wire.captivePortal == "captive")
        wire.captivePortal = "walled-garden"
        wire.availableInterfaces[0].captivePortal = nil
        let read = try wire.path()
        #expect(read.captivePortal == .unknown && read.availableInterfaces[0].captivePortal == .unknown)
        #expect(VarlinkInterfaces.pathmondDescription.contains("captivePortal: ?(unknown, captive, open, limited)"))
    }

    @Test func linkQualityRoundTripsWithTheServersGrade() throws {
        var path = Self.satellitePath
        path.linkQuality = LinkQuality(source: .nl80211, signalDBm: -61, expectedThroughputKbps: 52_000)
        path.availableInterfaces[0].linkQuality = path.linkQuality
        let read = try #require(try roundTrip(path))
        #expect(read.linkQualityGrade == .good)
        #expect(read.linkQuality?.signalDBm == -61 && read.linkQuality?.reportedGrade == .good)
        var wire = WireLinkQuality(LinkQuality(source: .ethernet, speedMbps: 1000))
        wire.grade = "superb"
        #expect(wire.linkQuality?.grade == .unknown)
        wire.source = "lidar"
        #expect(wire.linkQuality == nil)
        #expect(VarlinkInterfaces.pathmondDescription.contains("type LinkQuality ("))
    }

    @Test func interfacesAndNetworksCarryIt() {
        var status = InterfaceStatus(
            link: Link(index: 3, name: "sat0", flags: [.up, .running], operState: .up),
            interfaceClass: InterfaceClass(kind: .other, isExpensive: false), readiness: .usable, addresses: [],
            routes: [], supportedFamilies: [.ipv4], isConstrained: true)
        status.isUltraConstrained = true
        #expect(WireInterface(status).isUltraConstrained == true)
        let network = WireNetwork(
            key: "wifi:Sat", displayName: "Sat", constrained: nil, expensive: nil, interfaces: [],
            ultraConstrained: true)
        #expect(network.ultraConstrained == true)
        #expect(VarlinkInterfaces.pathmondDescription.contains("method SetUltraConstrained("))
        #expect(VarlinkInterfaces.pathmondDescription.contains("allowUltraConstrained: ?bool"))
    }
}

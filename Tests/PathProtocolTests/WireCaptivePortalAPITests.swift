// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// The captive-portal API's answer on the wire: optional, so that old clients and old servers keep working.
@Suite struct WireCaptivePortalAPITests {
    let codec = VarlinkCodec()

    static let heldPath: Path = {
        var path = Path(
            status: .satisfied,
            availableInterfaces: [
                PathInterface(index: 3, name: "wlan0", kind: .wifi, isExpensive: false, isConstrained: false)
            ], supportsIPv4: true)
        path.captivePortal = .captive
        path.captivePortalURI = "https://portal.example/api"
        path.captivePortalAPI = CaptivePortalAPIStatus(
            isCaptive: true, secondsRemaining: 2, bytesRemaining: 1_000_000,
            userPortalURL: "https://portal.example/", venueInfoURL: "https://venue.example/")
        return path
    }()

    @Test func theAnswerRoundTripsAndIsStreamedAsEncoded() throws {
        let bytes = codec.encodeReply(Methods.PathReply(path: WirePath(Self.heldPath)), continues: true)
        let reply = try codec.decode(VarlinkReply<Methods.PathReply>.self, from: Array(bytes.dropLast()))
        #expect(try reply.parameters?.path.path() == Self.heldPath)
        let streamed = StreamedReplyWriter.pathReply(WirePath(Self.heldPath))
        #expect(streamed == bytes)
        #expect(
            String(decoding: streamed, as: UTF8.self).contains(
                #""captivePortalAPI":{"bytesRemaining":1000000,"captive":true,"secondsRemaining":2,"#))
        #expect(VarlinkInterfaces.pathmondDescription.contains("captivePortalAPI: ?CaptivePortalAPI"))
    }

    /// An older client's types lack the field: decoding a new server's reply ignores it.
    @Test func anOlderClientIgnoresTheAnswer() throws {
        struct OldPath: Codable {
            var status: String
            var captivePortal: String?
            var captivePortalURI: String?
        }
        struct OldReply: Codable { var path: OldPath }
        let bytes = StreamedReplyWriter.pathReply(WirePath(Self.heldPath))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"captivePortalAPI\""))
        let old = try codec.decode(VarlinkReply<OldReply>.self, from: Array(bytes.dropLast()))
        #expect(old.parameters?.path.captivePortal == "captive")
        #expect(old.parameters?.path.captivePortalURI == "https://portal.example/api")
    }

    /// A reply from a server older than the field: no answer, nothing made up.
    @Test func anOlderServersReplyHasNoAnswer() throws {
        var path = Self.heldPath
        path.captivePortalAPI = nil
        var wire = WirePath(Self.heldPath)
        wire.captivePortalAPI = nil
        let bytes = codec.encodeReply(Methods.PathReply(path: wire), continues: false)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("captivePortalAPI"))
        let reply = try codec.decode(VarlinkReply<Methods.PathReply>.self, from: Array(bytes.dropLast()))
        #expect(try reply.parameters?.path.path() == path)
    }
}

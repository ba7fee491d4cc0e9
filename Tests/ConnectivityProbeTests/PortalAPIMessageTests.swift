// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import PathModel
import Testing

/// `io.pathmond.Probe.AskPortalAPI`: the call, the probe's two kinds of reply, and what either side refuses.
@Suite struct PortalAPIMessageTests {
    @Test func aCallRoundTripsThroughTheProbesReader() throws {
        let request = PortalAPIRequest(uri: "https://10.20.0.1/api?x=\"1\"", interface: "wlan0")
        #expect(try ProbeMethodCall.decode(request.encoded()) == .askPortalAPI(request))
        // A Check reader does not take it for its own call.
        #expect(throws: ProbeProtocolError.unknownMethod) { try ProbeRequest.decode(request.encoded()) }
    }

    @Test(arguments: [
        CaptivePortalAPIStatus(isCaptive: true),
        CaptivePortalAPIStatus(
            isCaptive: false, secondsRemaining: 326, bytesRemaining: CaptivePortalAPIStatus.maximumCount,
            userPortalURL: "https://example.org/portal.html", venueInfoURL: "http://flight.example.com/e"),
    ])
    func anAnswerRoundTrips(_ status: CaptivePortalAPIStatus) throws {
        let reply = PortalAPIRequest.encodedReply(.success(status))
        #expect(try PortalAPIRequest.decodeReply(reply) == .success(status))
    }

    @Test(arguments: [
        PortalAPIFailure.redirect(status: 302, location: "https://elsewhere.example/api"),
        .timedOut(.seconds(5)), .tooLarge(limit: 65_536), .httpStatus(503), .wrongContentType(nil),
        .transfer("SSL certificate problem: unable to get local issuer certificate"),
        .invalidAnswer(.missingCaptive),
    ])
    func aFailureRoundTripsWithItsKindAndWords(_ failure: PortalAPIFailure) throws {
        let reply = PortalAPIRequest.encodedReply(.failure(failure))
        #expect(try PortalAPIRequest.decodeReply(reply) == .failure(failure))
    }

    @Test func aFailureKeepsItsWordsShortEnoughForTheFrame() throws {
        let location = "https://portal.example/" + String(repeating: "\u{1}", count: 20_000)
        let failure = PortalAPIFailure.redirect(status: 302, location: location)
        #expect(failure.detail.count == 1_024)
        let reply = PortalAPIRequest.encodedReply(.failure(failure))
        #expect(reply.count <= ProbeRequest.maximumFrame)
        #expect(try PortalAPIRequest.decodeReply(reply) == .failure(failure))
    }

    @Test(arguments: [
        // RFC 8908 requires HTTPS: an http URI is refused before any request, on the probe's side too.
        #"{"method":"io.pathmond.Probe.AskPortalAPI","parameters":{"uri":"http://10.0.0.1/api","interface":"eth0"}}"#,
        #"{"method":"io.pathmond.Probe.AskPortalAPI","parameters":{"uri":"https://a/ b","interface":"eth0"}}"#,
        #"{"method":"io.pathmond.Probe.AskPortalAPI","parameters":{"uri":"https://a/","interface":"../x"}}"#,
        #"{"method":"io.pathmond.Probe.AskPortalAPI","parameters":{"uri":"https://a/"}}"#,
        #"{"method":"io.pathmond.Probe.AskPortalAPI","parameters":{"uri":7,"interface":"eth0"}}"#,
        #"{"method":"io.pathmond.Probe.AskPortalAPI"}"#,
        #"{"method":"io.pathmond.Probe.Forget","parameters":{}}"#,
    ])
    func refusesACallItMustNotActOn(_ text: String) {
        #expect(throws: ProbeProtocolError.self) { try ProbeMethodCall.decode(Array(text.utf8)) }
    }

    @Test func aLongURIIsRefused() {
        let uri = "https://portal.example/" + String(repeating: "a", count: CaptivePortalHint.maximumURILength)
        #expect(!PortalAPIRequest.isValidURI(uri))
        #expect(PortalAPIRequest.isValidURI("HTTPS://portal.example/api"))
    }

    /// pathmond reads the probe's answer by RFC 8908's rules again: a probe that sent something else is not believed.
    @Test(arguments: [
        #"{"parameters":{"api":{"seconds-remaining":5}}}"#,
        #"{"parameters":{"api":{"captive":"yes"}}}"#,
        #"{"parameters":{"api":[true]}}"#,
        #"{"parameters":{}}"#,
        #"{"error":"io.pathmond.Probe.PortalAPIFailed","parameters":{"kind":"bored","detail":"x"}}"#,
        #"{"error":"io.pathmond.Probe.PortalAPIFailed","parameters":{"kind":"redirect"}}"#,
    ])
    func refusesAReplyThatIsNotAnAnswer(_ text: String) {
        #expect(throws: ProbeProtocolError.self) { try PortalAPIRequest.decodeReply(Array(text.utf8)) }
    }

    @Test func theProbesOwnErrorIsARefusal() {
        let reply = ProbeAnswer.encodedError(.invalidParameter("uri"))
        #expect(throws: ProbeProtocolError.refused("org.varlink.service.InvalidParameter")) {
            try PortalAPIRequest.decodeReply(reply)
        }
    }

    @Test(arguments: [
        ("application/captive+json", true), ("Application/Captive+JSON; charset=utf-8", true),
        (" application/captive+json ;x=y", true), ("application/json", false), ("text/html", false), ("", false),
    ])
    func theMediaTypeIsRFC8908s(_ contentType: String, _ matches: Bool) {
        #expect(CaptivePortalAPIStatus.isMediaType(contentType) == matches)
    }
}

// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Testing

/// The call pathmond sends the probe and the answer it reads back: round trips, and the probe's refusals of what it
/// must not act on.
@Suite struct ProbeMessageTests {
    @Test func aCallRoundTrips() throws {
        let request = ProbeRequest(uri: "http://10.0.0.1/nm", interface: "eth0", response: "ok \"quoted\"")
        #expect(try ProbeRequest.decode(request.encoded()) == request)
    }

    @Test(arguments: [
        ProbeAnswer(verdict: .open, status: 204, detail: "HTTP 204"),
        ProbeAnswer(verdict: .portal, status: 302, location: "http://portal/login", detail: "a redirect"),
        ProbeAnswer(verdict: .limited, detail: "no answer: Could not resolve host"),
    ])
    func anAnswerRoundTrips(_ answer: ProbeAnswer) throws {
        #expect(try ProbeAnswer.decode(answer.encoded()) == answer)
    }

    @Test func anErrorReplyIsThrownAsARefusal() {
        let reply = ProbeAnswer.encodedError(.invalidParameter("interface"))
        #expect(throws: ProbeProtocolError.refused("org.varlink.service.InvalidParameter")) {
            try ProbeAnswer.decode(reply)
        }
    }

    @Test(arguments: [
        #"{"method":"io.pathmond.Probe.Check","parameters":{"uri":"file:///etc/shadow","interface":"eth0","response":""}}"#,
        #"{"method":"io.pathmond.Probe.Check","parameters":{"uri":"http://a/","interface":"../x","response":""}}"#,
        #"{"method":"io.pathmond.Probe.Check","parameters":{"uri":"http://a/","interface":"averyveryverylongname","response":""}}"#,
        #"{"method":"io.pathmond.Probe.Check","parameters":{"uri":"http://a/","response":""}}"#,
        #"{"method":"io.pathmond.Probe.Check","parameters":{"uri":"http://a/","interface":"eth0","response":7}}"#,
        #"{"method":"io.pathmond.Probe.Check"}"#,
    ])
    func refusesACallItMustNotActOn(_ text: String) {
        #expect(throws: ProbeProtocolError.self) { try ProbeRequest.decode(Array(text.utf8)) }
    }

    @Test func refusesAnotherMethodGarbageAndAFlood() {
        #expect(throws: ProbeProtocolError.unknownMethod) {
            try ProbeRequest.decode(Array(#"{"method":"org.varlink.service.GetInfo"}"#.utf8))
        }
        #expect(throws: ProbeProtocolError.self) { try ProbeRequest.decode(Array("[[[[[[[[[[".utf8)) }
        #expect(throws: ProbeProtocolError.tooLarge) {
            try ProbeRequest.decode([UInt8](repeating: 0x20, count: ProbeRequest.maximumFrame + 1))
        }
    }
}

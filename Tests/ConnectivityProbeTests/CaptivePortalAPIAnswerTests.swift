// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import PathModel
import Testing

/// RFC 8908's answers, read by the pure parser: its own examples, then what a broken or hostile portal sends.
@Suite struct CaptivePortalAPIAnswerTests {
    /// RFC 8908 section 5's first example: held at the portal.
    static let rfcCaptive = """
        {
           "captive": true,
           "user-portal-url": "https://example.org/portal.html"
        }
        """
    /// RFC 8908 section 5's second example: signed in, with time left.
    static let rfcOpen = """
        {
           "captive": false,
           "user-portal-url": "https://example.org/portal.html",
           "venue-info-url": "https://flight.example.com/entertainment",
           "seconds-remaining": 326,
           "can-extend-session": true
        }
        """

    @Test func readsTheRFCExamples() throws {
        #expect(
            try CaptivePortalAPIStatus.parse(Array(Self.rfcCaptive.utf8))
                == CaptivePortalAPIStatus(isCaptive: true, userPortalURL: "https://example.org/portal.html"))
        #expect(
            try CaptivePortalAPIStatus.parse(Array(Self.rfcOpen.utf8))
                == CaptivePortalAPIStatus(
                    isCaptive: false, secondsRemaining: 326, userPortalURL: "https://example.org/portal.html",
                    venueInfoURL: "https://flight.example.com/entertainment"))
    }

    @Test func readsCountsAndSkipsExtensions() throws {
        let text = #"{"captive":true,"bytes-remaining":1.5e6,"seconds-remaining":0,"x-vendor":{"a":[1,null,"\u00e9"]}}"#
        let status = try CaptivePortalAPIStatus.parse(Array(text.utf8))
        #expect(status == CaptivePortalAPIStatus(isCaptive: true, secondsRemaining: 0, bytesRemaining: 1_500_000))
        let huge = try CaptivePortalAPIStatus.parse(Array(#"{"captive":false,"bytes-remaining":1e300}"#.utf8))
        #expect(huge.bytesRemaining == CaptivePortalAPIStatus.maximumCount)
    }

    @Test func dropsAPlainHTTPSignInPageAndUnshowableURLs() throws {
        let text = #"{"captive":true,"user-portal-url":"http://example.org/","venue-info-url":"https://a b/"}"#
        #expect(try CaptivePortalAPIStatus.parse(Array(text.utf8)) == CaptivePortalAPIStatus(isCaptive: true))
    }

    @Test(arguments: [
        (#"{"seconds-remaining":3}"#, CaptivePortalAPIError.missingCaptive),
        (#"{"captive":"true"}"#, .wrongType(member: "captive", expected: "a boolean")),
        (#"{"captive":1}"#, .wrongType(member: "captive", expected: "a boolean")),
        (
            #"{"captive":true,"seconds-remaining":-1}"#,
            .wrongType(member: "seconds-remaining", expected: "a number of at least 0")
        ),
        (
            #"{"captive":true,"bytes-remaining":"9"}"#,
            .wrongType(member: "bytes-remaining", expected: "a number of at least 0")
        ),
        (#"{"captive":true,"user-portal-url":7}"#, .wrongType(member: "user-portal-url", expected: "a string")),
        (#"{"captive":true,"captive":false}"#, .duplicateMember("captive")),
    ])
    func refusesWrongTypes(text: String, expected: CaptivePortalAPIError) {
        #expect(throws: expected) { try CaptivePortalAPIStatus.parse(Array(text.utf8)) }
    }

    @Test(arguments: [
        "", "[]", "true", #"{"captive":true"#, #"{"captive":true}x"#, #"{"captive":tru}"#, #"{"captive":true,}"#,
        #"{"captive":01}"#, "{\"captive\":true,\"a\":\"\u{01}\"}", #"{"captive":true,"a":"\ud800"}"#,
        #"{'captive':true}"#, String(repeating: "[", count: 40),
        #"{"a":"# + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + #","captive":true}"#,
    ])
    func refusesWhatIsNotOneObject(text: String) {
        #expect {
            try CaptivePortalAPIStatus.parse(Array(text.utf8))
        } throws: { error in
            if case .syntax = error as? CaptivePortalAPIError { return true }
            return false
        }
    }

    @Test func refusesInvalidUTF8AndOversizedAnswers() {
        let invalid: [UInt8] = Array(#"{"captive":true,"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: CaptivePortalAPIError.syntax(offset: 21, reason: "invalid UTF-8 in a string")) {
            try CaptivePortalAPIStatus.parse(invalid)
        }
        let padded = Array(Self.rfcCaptive.utf8) + Array(repeating: UInt8(ascii: " "), count: 65_536)
        #expect(throws: CaptivePortalAPIError.tooLarge(size: padded.count)) {
            try CaptivePortalAPIStatus.parse(padded)
        }
        let fits = Array(repeating: UInt8(ascii: " "), count: 65_536 - 16) + Array(#"{"captive":true}"#.utf8)
        #expect(throws: Never.self) { try CaptivePortalAPIStatus.parse(fits) }
    }
}

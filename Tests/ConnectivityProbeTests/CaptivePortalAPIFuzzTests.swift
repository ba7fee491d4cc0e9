// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import FuzzSupport
import PathModel
import Testing

// Captive-portal API answers (RFC 8908), as a portal's web server sends them.

@Test func captivePortalAPIParserSurvivesMutatedAnswers() {
    let seeds = [
        CaptivePortalAPIAnswerTests.rfcCaptive, CaptivePortalAPIAnswerTests.rfcOpen,
        #"{"captive":false,"bytes-remaining":1.5e6,"x":[{"y":null},"\u00e9\ud83d\ude00"]}"#,
    ].map { Array($0.utf8) }
    let words = [
        "{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud800", "true", "false", "null", "-0.5e+3", "\"captive\"",
        "\"seconds-remaining\"", "\"user-portal-url\"", "https://",
    ].map { Array($0.utf8) }
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 2048, seed: 0xCA97_1BE)
    let report = Fuzz.run("captive-portal-api", count: 100_000, mutator: mutator) { input in
        guard let status = try? CaptivePortalAPIStatus.parse(input) else { return false }
        // What is kept is what the path may show: non-negative bounded counts, showable URLs, https sign-in pages.
        #expect((status.secondsRemaining ?? 0) >= 0 && (status.bytesRemaining ?? 0) >= 0)
        #expect((status.secondsRemaining ?? 0) <= CaptivePortalAPIStatus.maximumCount)
        if let url = status.userPortalURL {
            #expect(CaptivePortalHint.isValidURI(url) && url.lowercased().hasPrefix("https://"))
        }
        if let url = status.venueInfoURL { #expect(CaptivePortalHint.isValidURI(url)) }
        return true
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

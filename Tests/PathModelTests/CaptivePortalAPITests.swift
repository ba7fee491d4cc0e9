// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// What an RFC 8908 answer changes in the path: it stands in only where nothing else said (the parser's own tests
/// are NetworkHints' `CaptivePortalAPIAnswerTests`).
@Suite struct CaptivePortalAPITests {
    /// The answer decides an unknown state, never NetworkManager's own check, and shows only beside a real URI.
    @Test func theAnswerStandsInOnlyWhereNothingElseSaid() {
        let uri = "https://portal.example/api"
        let captive = CaptivePortalAPIStatus(isCaptive: true, secondsRemaining: 60)
        #expect(CaptivePortalHint(uri: uri, api: captive).resolved == (.captive, uri))
        #expect(CaptivePortalHint(uri: uri, api: CaptivePortalAPIStatus(isCaptive: false)).resolved == (.open, uri))
        #expect(CaptivePortalHint(state: .open, uri: uri, api: captive).resolved == (.open, uri))
        #expect(CaptivePortalHint(uri: uri, api: captive).resolvedAPI == captive)
        #expect(CaptivePortalHint(uri: CaptivePortalHint.unrestricted, api: captive).resolvedAPI == nil)
        #expect(CaptivePortalHint(uri: nil, api: captive).resolved == (.unknown, nil))
    }
}

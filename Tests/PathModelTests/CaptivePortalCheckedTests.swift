// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// pathmond's own connectivity check (`CaptivePortalHint.checked`) speaks last: after NetworkManager's check and
/// after the network's own words (the unrestricted URN, the portal API's answer).
@Suite struct CaptivePortalCheckedTests {
    static let uri = "https://portal.example/api"

    @Test(arguments: CaptivePortal.allCases)
    func aloneTheCheckDecides(_ checked: CaptivePortal) {
        #expect(CaptivePortalHint(checked: checked).resolved == (checked, nil))
        #expect(CaptivePortalHint(uri: Self.uri, checked: checked).resolved == (checked, Self.uri))
    }

    @Test(arguments: [CaptivePortal.captive, .open, .limited])
    func networkManagersCheckWins(_ checked: CaptivePortal) {
        #expect(CaptivePortalHint(state: .open, checked: checked).resolved == (.open, nil))
        #expect(CaptivePortalHint(state: .captive, uri: Self.uri, checked: checked).resolved == (.captive, Self.uri))
    }

    @Test(arguments: [CaptivePortal.captive, .open, .limited])
    func thePortalsAPIWins(_ checked: CaptivePortal) {
        let open = CaptivePortalAPIStatus(isCaptive: false)
        #expect(CaptivePortalHint(uri: Self.uri, api: open, checked: checked).resolved == (.open, Self.uri))
        let captive = CaptivePortalAPIStatus(isCaptive: true)
        #expect(CaptivePortalHint(uri: Self.uri, api: captive, checked: checked).resolved == (.captive, Self.uri))
    }

    @Test func theUnrestrictedURNMeansNoPortalButNotAReachedInternet() {
        let urn = CaptivePortalHint.unrestricted
        #expect(CaptivePortalHint(uri: urn, checked: .captive).resolved == (.open, nil))
        #expect(CaptivePortalHint(uri: urn, checked: .limited).resolved == (.limited, nil))
        #expect(CaptivePortalHint(uri: urn).resolved == (.open, nil))
    }
}

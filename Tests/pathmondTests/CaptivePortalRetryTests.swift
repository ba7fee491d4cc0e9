// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

// The RFC 8908 check's backoff after failures (issue 26); every failure is asked again (the probe sends the request:
// no sandbox of pathmond's own refuses it).

@Test func theBackoffDoublesFromFiveSecondsToTenMinutes() {
    let delays = (1...10).map { CaptivePortalChecker.retries.delay(afterFailures: $0).components.seconds }
    #expect(delays == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600])
    // However long the portal has failed, the delay neither overflows nor passes the bound.
    #expect(CaptivePortalChecker.retries.delay(afterFailures: 10_000) == .seconds(600))
    #expect(CaptivePortalChecker.retries.delay(afterFailures: 0) == .seconds(5))
}

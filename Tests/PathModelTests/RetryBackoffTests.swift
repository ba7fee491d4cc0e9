// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The doubling waits shared by the gateway resolution and the captive portal's API check.
@Test func theWaitDoublesFromTheFirstToTheLongest() {
    let backoff = RetryBackoff(first: .seconds(1), longest: .seconds(64))
    #expect((1...9).map { backoff.delay(afterFailures: $0).components.seconds } == [1, 2, 4, 8, 16, 32, 64, 64, 64])
    // No failure yet counts as one; a huge count neither overflows nor passes the bound.
    #expect(backoff.delay(afterFailures: 0) == .seconds(1))
    #expect(backoff.delay(afterFailures: .max) == .seconds(64))
    #expect(RetryBackoff(first: .milliseconds(250), longest: .seconds(1)).delay(afterFailures: 2) == .milliseconds(500))
}

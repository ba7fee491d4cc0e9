// SPDX-License-Identifier: Apache-2.0
import Logging
import Testing

@testable import DaemonRuntime

/// Lines a client can cause are written at most once per interval, and the next says how many were held back.
@Suite struct ThrottledLogTests {
    @Test func atMostOneLinePerInterval() {
        let log = ThrottledLog(logger: Logger(label: "test"), interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(log.notice("first", now: start))
        for second in 1..<60 {
            #expect(!log.notice("flood", now: start + .seconds(second)), "second \(second)")
        }
        #expect(log.notice("a minute on", now: start + .seconds(60)))
        #expect(!log.notice("again", now: start + .seconds(61)))
    }
}

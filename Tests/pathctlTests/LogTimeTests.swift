// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

@Suite struct LogTimeTests {
    /// 2026-11-26 00:00:00 UTC, in microseconds.
    let now: Int64 = 1_795_564_800_000_000

    @Test(arguments: [
        ("-1h", 3600), ("-30min", 1800), ("-2d", 172_800), ("-90s", 90), ("-1h30min", 5400), ("-1w", 604_800),
        ("-0s", 0),
    ])
    func relativeTimesCountBackFromNow(text: String, seconds: Int64) throws {
        #expect(try LogTime.parse(text, now: now) == now - seconds * 1_000_000)
    }

    @Test func epochSecondsAreRead() throws {
        #expect(try LogTime.parse("@0", now: now) == 0)
        #expect(try LogTime.parse("@1795564800", now: now) == now)
    }

    /// Absurd numbers are refused as out of range: no arithmetic on them may trap.
    @Test(arguments: [
        "-999999999w", "-9223372036854775807s", "-9223372036854775808w", "-99999999999999999999999s",
        "-999999999w999999999w999999999w999999999w", "-15250w", "-999999999d", "-999999999h", "-53000w",
        "@9223372036854775807", "@99999999999999999999", "@9223372036855",
        "-1h" + String(repeating: "9", count: 40) + "s",
    ])
    func absurdNumbersAreOutOfRange(text: String) {
        #expect(throws: LogTime.ParseError.outOfRange) { try LogTime.parse(text, now: now) }
    }

    @Test(arguments: ["", "-", "-h", "-1", "-1x", "1h", "@", "@-5", "@1.5", "tomorrow", "2026-13-01", "-1h-1h"])
    func otherTextIsNotATime(text: String) {
        #expect(throws: LogTime.ParseError.notATime) { try LogTime.parse(text, now: now) }
    }

    @Test func theExtremesOfNowDoNotTrap() throws {
        #expect(throws: LogTime.ParseError.outOfRange) { try LogTime.parse("-1s", now: 0) }
        #expect(throws: LogTime.ParseError.outOfRange) { try LogTime.parse("-1s", now: .min) }
        #expect(try LogTime.parse("-0s", now: .max) == .max)
    }
}

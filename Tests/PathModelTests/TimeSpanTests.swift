// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Durations in systemd.time(7)'s spelling, for pathmond.conf and `pathctl check --max-deferral`.
@Suite struct TimeSpanTests {
    @Test(arguments: [
        ("3s", Duration.seconds(3)), ("3", .seconds(3)), ("500ms", .milliseconds(500)), ("2min", .seconds(120)),
        ("1h 30min", .seconds(5400)), ("2d12h", .seconds(216_000)), ("14d", .seconds(14 * 86_400)),
        ("1w", .seconds(7 * 86_400)), ("0", .zero), (" 10 s ", .seconds(10)), ("3SEC", .seconds(3)),
    ])
    func parses(_ text: String, _ expected: Duration) {
        #expect(TimeSpan.parse(text) == expected)
    }

    @Test(arguments: ["", " ", "-1s", "1.5s", "3 parsecs", "s", "1e3", "99999999999999d", "4000d", "1s-"])
    func refuses(_ text: String) {
        #expect(TimeSpan.parse(text) == nil)
    }

    @Test(arguments: [
        (Duration.seconds(3), "3s"), (.milliseconds(1500), "1s 500ms"), (.seconds(14 * 86_400), "14d"),
        (.zero, "0"), (.seconds(3661), "1h 1min 1s"),
    ])
    func formats(_ duration: Duration, _ expected: String) {
        #expect(TimeSpan.format(duration) == expected)
        #expect(TimeSpan.parse(expected) == duration)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

/// The model's address parser (bytes, one pass) held against the C library's `inet_pton` on random address-like
/// text: the same addresses accepted, with the same bytes. Two deliberate differences are left out of the
/// comparison: IPv6 text with an embedded IPv4 quad (`::ffff:1.2.3.4`), which the model refuses, and IPv4 parts
/// with leading zeros (`01.2.3.4`), which it takes as decimal where `inet_pton` refuses them.
@Suite struct IPAddressTextOracleTests {
    private static func oracle(_ text: String) -> [UInt8]? {
        let family = text.contains(":") ? AF_INET6 : AF_INET
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, text, &bytes) == 1 else { return nil }
        return Array(bytes.prefix(family == AF_INET6 ? 16 : 4))
    }

    private static func comparable(_ text: String) -> Bool {
        if text.contains(":") { return !text.contains(".") }
        return !text.split(separator: ".").contains { $0.count > 1 && $0.first == "0" }
    }

    private static func check(_ text: String) {
        guard comparable(text) else { return }
        #expect(IPAddress(text)?.bytes == oracle(text), "\(text)")
    }

    /// Text near the valid forms: pieces of addresses joined by separators, so that most samples are close calls.
    @Test func randomTextAgreesWithInetPton() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "0", "1", "9", "10", "99", "255", "256", "300", "999", "a", "f", "F", "ff", "fff", "ffff", "fffff", "db8",
            "2001", "0000", "00000", "g", "", " ", "+1", "-1",
        ]
        let separators = [".", ":", "::", ":::", "."]
        var accepted = 0
        for _ in 0..<60_000 {
            var text = ""
            if Int.random(in: 0..<6, using: &generator) == 0 { text += "::" }
            for position in 0..<Int.random(in: 1...9, using: &generator) {
                if position > 0 { text += separators.randomElement(using: &generator)! }
                text += pieces.randomElement(using: &generator)!
            }
            if Int.random(in: 0..<6, using: &generator) == 0 { text += "::" }
            Self.check(text)
            if IPAddress(text) != nil { accepted += 1 }
        }
        // The samples must reach both answers often enough to mean something.
        #expect(accepted > 500)
    }

    @Test(arguments: [
        "1.2.3.4", "255.255.255.255", "0.0.0.0", "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::",
        "::2:3:4:5:6:7:8",
        "1::8", "ffff:FFFF::", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::", "::1:", ":::", ":", "1:", "12345::",
    ])
    func edgeCasesAgreeWithInetPton(_ text: String) {
        Self.check(text)
    }
}

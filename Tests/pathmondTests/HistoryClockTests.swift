// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import pathmond

/// The boot ID that history entries carry: the kernel's, else the one systemd hands the sandboxed service
/// (`ProcSubset=pid` hides /proc/sys, and with it the kernel's file).
@Suite struct HistoryClockTests {
    private let kernelBootID = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)

    @Test func theKernelsBootIDIsUsedWhereVisible() throws {
        let expected = try #require(kernelBootID)
        #expect(HistoryClock(environment: [:]).bootID == expected)
        #expect(HistoryClock(environment: ["PATHMOND_BOOT_ID": "0123456789abcdef0123456789abcdef"]).bootID == expected)
    }

    @Test(arguments: [
        ("0123456789abcdef0123456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
        ("01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
    ])
    func systemdsSpellingsAreAccepted(_ text: String, _ uuid: String) {
        #expect(HistoryClock.uuidForm(text) == uuid)
    }

    @Test(arguments: ["", "xyz", "0123456789abcdef", "0123456789abcdef0123456789abcdef0", "%b"])
    func anythingElseIsNotABootID(_ text: String) {
        #expect(HistoryClock.uuidForm(text) == nil)
    }
}

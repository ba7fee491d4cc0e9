// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetlinkTestSupport
import Testing

@testable import Netlink

/// The nl80211 watcher on machines without a radio: it must say so and yield nothing, never crash. Where cfg80211
/// exists (a laptop) the same tests check that it starts and lists what it sees.
@Suite struct NL80211IdentityWatcherTests {
    static var hasCfg80211: Bool { FileManager.default.fileExists(atPath: "/sys/class/ieee80211") }

    @Test func withoutCfg80211TheWatcherReportsNoSupportAndYieldsNothing() async throws {
        let watcher = NL80211IdentityWatcher()
        let support = watcher.support
        if Self.hasCfg80211 {
            #expect(support == .available)
            return
        }
        guard case .unavailable(let reason) = support else {
            Issue.record("expected no Wi-Fi support, got \(support)")
            return
        }
        #expect(reason.contains("no Wi-Fi support"))
        var received: [WiFiAssociation] = []
        for await association in watcher.associations() { received.append(association) }
        #expect(received.isEmpty)
        #expect(watcher.snapshot().isEmpty)
        watcher.stop()
    }

    @Test func insideANamespaceWithoutWirelessInterfacesNothingIsSeen() async throws {
        try await withTestNamespace { namespace in
            let watcher = NL80211IdentityWatcher(namespacePath: namespace.path)
            defer { watcher.stop() }
            if watcher.support == .available {
                // cfg80211 is there, but no wiphy lives in a fresh namespace: the dump is empty.
                _ = watcher.associations()
                #expect(watcher.snapshot().isEmpty)
            } else {
                #expect(!Self.hasCfg80211)
            }
        }
    }
}

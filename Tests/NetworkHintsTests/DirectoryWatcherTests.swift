// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
import NetworkHints
import SDEvent
import Testing

/// dhclient appends each renewed lease to a lease file it keeps open (and rewrites it by rename only now and then),
/// so a renewal that changes only an option (the captive-portal URI, ANDROID_METERED) is a write with no close:
/// the lease directories are watched for those writes too.
@Suite struct DirectoryWatcherTests {
    @Test func anAppendToAFileKeptOpenIsAChange() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "pmwatch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Open before the watch, as dhclient's lease file is when pathmond starts.
        let file = try #require(fopen(directory + "/dhclient.eth0.leases", "a"))
        defer { fclose(file) }

        let loop = try SDEventLoop.startedOnNewThread(name: "watch-test")
        defer { loop.exit() }
        let changes = Locked(0)
        let watcher = loop.sync { () -> UncheckedTransfer<DirectoryWatcher?> in
            let watcher = try? DirectoryWatcher(directories: { [directory] }, loop: loop, followsAppends: true)
            watcher?.start { changes.withLock { $0 += 1 } }
            return UncheckedTransfer(watcher)
        }
        defer { loop.sync { watcher.value?.stop() } }
        #expect(watcher.value != nil)

        fputs("lease {\n  interface \"eth0\";\n  option default-url \"https://portal.example/api\";\n}\n", file)
        fflush(file)
        var waited = 0
        while changes.withLock({ $0 }) == 0 && waited < 200 {
            usleep(10_000)
            waited += 1
        }
        #expect(changes.withLock { $0 } > 0, "a lease appended to a file kept open went unnoticed")
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

/// Only the latest read of an object counts: a reply to an older one, or to a read since dropped, is stale.
@Suite struct PendingReadsTests {
    @Test func onlyTheLatestReadOfAPathCounts() {
        var reads = PendingReads()
        let first = reads.start("/dev/1")
        let second = reads.start("/dev/1")
        let other = reads.start("/dev/2")
        let stale = reads.finish("/dev/1", first)
        let latest = reads.finish("/dev/1", second)
        let again = reads.finish("/dev/1", second)
        #expect(!stale, "superseded")
        #expect(latest)
        #expect(!again, "finished once")
        #expect(!reads.isEmpty)
        reads.drop("/dev/2")
        let dropped = reads.finish("/dev/2", other)
        #expect(!dropped, "dropped: the object went away")
        #expect(reads.isEmpty)

        let kept = reads.start("/sim/1")
        let gone = reads.start("/sim/2")
        reads.keep(only: ["/sim/1"])
        let unused = reads.finish("/sim/2", gone)
        #expect(!unused)
        reads.dropAll()
        let afterNewOwner = reads.finish("/sim/1", kept)
        #expect(!afterNewOwner, "a new owner: every read is stale")
        #expect(reads.isEmpty)
    }
}

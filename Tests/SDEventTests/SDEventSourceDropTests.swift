// SPDX-License-Identifier: Apache-2.0
import Glibc
import Locking
import SDEvent
import Testing

/// A handler that drops its own source (a client's connection closing while its read handler runs): the source
/// stops, and nothing the handler holds is freed under it.
@Suite struct SDEventSourceDropTests {
    final class Holder: @unchecked Sendable {
        var source: SDEventSource?
        let calls = Locked(0)
    }

    @Test func aHandlerMayDropItsOwnSource() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-drop")
        defer { loop.exit() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let reader = ends[0]
        let holder = Holder()
        let started = loop.sync {
            holder.source = try? loop.watch(reader, for: .readable) { [holder] events in
                #expect(events.contains(.readable))
                holder.calls.withLock { $0 += 1 }
                holder.source = nil
            }
            return holder.source != nil
        }
        #expect(started)
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(waitUntil { holder.calls.withLock { $0 } == 1 })
        // The byte is still unread: a source that were still there would be called again (level-triggered).
        #expect(loop.sync { holder.source == nil })
        #expect(holder.calls.withLock { $0 } == 1)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Glibc
import Locking
import PathModel
import SDEvent
import Testing

@testable import pathmond

/// The fan-out on a real sd-event loop: every delivery arrives, in order; the first slice is written at once, the
/// rest on later turns; and a descriptor that becomes ready meanwhile (a client's GetPath) is served before the
/// remaining slices, not after them.
@Suite struct FanOutSliceTests {
    /// Records, on the loop, the order of deliveries and of other events.
    final class Journal: Sendable {
        let events = Locked<[String]>([])
        func note(_ event: String) { events.withLock { $0.append(event) } }
    }

    final class RecordingSubscriber: Subscriber, Sendable {
        let interest = Interest.path(.unrestricted)
        let number: Int
        let journal: Journal
        /// Called on delivery (the first subscriber of the second slice makes a descriptor ready).
        let onDelivery: @Sendable () -> Void
        init(number: Int, journal: Journal, onDelivery: @escaping @Sendable () -> Void = {}) {
            self.number = number
            self.journal = journal
            self.onDelivery = onDelivery
        }
        func deliver(_ update: Update) {
            journal.note("s\(number)")
            onDelivery()
        }
    }

    static let update = Update(generation: 1, value: .path(Path(status: .satisfied)), streamedReply: [0])

    @Test func aReadyDescriptorIsServedBetweenSlices() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-fanout")
        defer { loop.exit() }
        let journal = Journal()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let (reader, writer) = (ends[0], ends[1])
        let count = FanOut.sliceSize * 3 + 5
        let subscribers = (0..<count).map { number in
            RecordingSubscriber(number: number, journal: journal) {
                // The first delivery of the second slice: a call arrives while the fan-out is under way.
                if number == FanOut.sliceSize {
                    var byte: UInt8 = 1
                    _ = write(writer, &byte, 1)
                }
            }
        }
        let (fanOut, callSource) = try loop.sync {
            UncheckedTransfer(
                Result { () throws(SDEventError) -> (FanOut, SDEventSource) in
                    let fanOut = try FanOut(loop: loop)
                    let call = try loop.watch(reader, for: .readable) { _ in
                        var byte: UInt8 = 0
                        _ = read(reader, &byte, 1)
                        journal.note("call")
                    }
                    return (fanOut, call)
                })
        }.value.get()
        let source = UncheckedTransfer(callSource)
        defer { loop.sync { source.value.cancel() } }
        let deliveredAtOnce = loop.sync {
            fanOut.deliver(subscribers.map { ($0, Self.update) })
            return journal.events.withLock { $0.count }
        }
        #expect(deliveredAtOnce == FanOut.sliceSize, "the first slice is written before deliver returns")
        #expect(waitUntil { journal.events.withLock { $0.count } == count + 1 })
        let events = journal.events.withLock { $0 }
        #expect(events.filter { $0 != "call" } == (0..<count).map { "s\($0)" }, "every delivery, in order")
        let served = try #require(events.firstIndex(of: "call"))
        #expect(served > FanOut.sliceSize && served <= 2 * FanOut.sliceSize + 1, "served at position \(served)")
    }
}

/// Polls `condition` for up to 5 s.
private func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

// SPDX-License-Identifier: Apache-2.0
import Glibc
import Locking
import PathModel
import SDEvent
import Testing

@testable import pathmond

/// The fan-out on a real sd-event loop: every subscriber of every delivery is written once, deliveries in order;
/// the first slice is written at once, the rest on later turns (a slice may cross from one delivery into the next);
/// and a descriptor that becomes ready meanwhile (a client's GetPath) is served before the remaining slices, not
/// after them.
@Suite struct FanOutSliceTests {
    /// Records, on the loop, the order of deliveries and of other events.
    final class Journal: Sendable {
        let events = Locked<[String]>([])
        /// Notes `event`; returns how many deliveries (not calls) are noted with it.
        @discardableResult
        func note(_ event: String) -> Int {
            events.withLock {
                $0.append(event)
                return $0.count { $0 != "call" }
            }
        }
    }

    final class RecordingSubscriber: Subscriber, Sendable {
        let interest = Interest.path(.unrestricted)
        let name: String
        let journal: Journal
        /// Called on delivery with the number of deliveries so far.
        let onDelivery: @Sendable (Int) -> Void
        init(name: String, journal: Journal, onDelivery: @escaping @Sendable (Int) -> Void) {
            self.name = name
            self.journal = journal
            self.onDelivery = onDelivery
        }
        func deliver(_ update: Update) {
            onDelivery(journal.note("\(name)@\(update.generation)"))
        }
    }

    /// An interest's box stands for an interest; any object gives the identity.
    final class InterestBox {}

    @Test func aReadyDescriptorIsServedBetweenSlices() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-fanout")
        defer { loop.exit() }
        let journal = Journal()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let (reader, writer) = (ends[0], ends[1])
        // Three interests' deliveries: the first slice ends inside the second delivery.
        let sizes = [FanOut.sliceSize - 10, FanOut.sliceSize * 2, 15]
        let boxes = sizes.map { _ in InterestBox() }
        let deliveries = sizes.indices.map { delivery in
            let subscribers = (0..<sizes[delivery]).map { number in
                RecordingSubscriber(name: "d\(delivery)s\(number)", journal: journal) { count in
                    // The first delivery of the second slice: a call arrives while the fan-out is under way.
                    if count == FanOut.sliceSize + 1 {
                        var byte: UInt8 = 1
                        _ = write(writer, &byte, 1)
                    }
                }
            }
            return Delivery(
                interest: ObjectIdentifier(boxes[delivery]),
                subscribers: Dictionary(uniqueKeysWithValues: subscribers.map { (ObjectIdentifier($0), $0) }),
                update: Update(generation: UInt64(delivery), value: .path(Path(status: .satisfied)), streamedReply: [0])
            )
        }
        let count = sizes.reduce(0, +)
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
            fanOut.deliver(deliveries)
            return journal.events.withLock { $0.count }
        }
        #expect(deliveredAtOnce == FanOut.sliceSize, "the first slice is written before deliver returns")
        #expect(waitUntil { journal.events.withLock { $0.count } == count + 1 })
        let events = journal.events.withLock { $0 }
        let written = events.filter { $0 != "call" }
        #expect(Set(written).count == count, "every subscriber once")
        let generations = written.map { $0.split(separator: "@").last.map(String.init) ?? "" }
        #expect(generations == sizes.indices.flatMap { Array(repeating: "\($0)", count: sizes[$0]) }, "in order")
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

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The route follower hands on only the messages that changed its state (`KernelState.applyDroppingNoOps`), and the
/// tracker's state is fed what it hands on: after seeded random batches, a LAN's neighbour churn and addresses
/// renewed among them, the state must be the one the whole batch makes, the batch left must make that same state
/// from the state before, and only neighbour and address messages may be left out.
@Suite struct KernelStateNoOpTests {
    static let seeds: [UInt64] = [1, 42, 0xDEAD_BEEF]

    @Test(arguments: seeds)
    func whatIsLeftOutChangesNothing(_ seed: UInt64) {
        var generator = ScaledKernel(count: 12, random: SplitMix64(seed: seed))
        var state = KernelState(generator.populated())
        var leftOut: [String: Int] = [:]
        for step in 1...800 {
            let batch = (0...generator.random.below(4)).map { _ in
                generator.random.chance(40) ? Self.churn(&generator, after: state) : generator.event(after: state)
            }
            let before = state
            var whole = before
            let wholeChanges = whole.apply(batch)
            var left = batch
            let changes = state.applyDroppingNoOps(&left)
            var replayed = before
            let replayedChanges = replayed.apply(left)
            let place = "seed \(seed), step \(step): \(batch)"
            #expect(state == whole, "the state differs from the whole batch's: \(place)")
            #expect(replayed == state, "the batch left makes another state: \(place)")
            #expect(changes == wholeChanges && replayedChanges == changes, "the changes differ: \(place)")
            #expect(Self.isSubsequence(left, of: batch), "the batch left is out of order: \(place)")
            for event in Self.removed(left, from: batch) {
                switch event {
                case .neighbourChanged(let neighbour):
                    let kind =
                        before.routes.contains { $0.gateway == neighbour.address } ? "gateway's as it was" : "host's"
                    leftOut[kind, default: 0] += 1
                case .neighbourRemoved: leftOut["gone", default: 0] += 1
                case .addressAdded: leftOut["address renewed", default: 0] += 1
                default: Issue.record("\(event) left out: \(place)")
                }
            }
        }
        // Each kind of message the follower leaves out was seen left out (the test can tell).
        for kind in ["gateway's as it was", "host's", "gone", "address renewed"] {
            #expect(leftOut[kind, default: 0] > 0, "no \(kind) entry left out, seed \(seed)")
        }
    }

    /// What a busy host sends that changes nothing kept: a LAN host's entry, a gateway's entry as it is held (its
    /// NUD state moved) or failing, an address renewed as it is held.
    static func churn(_ generator: inout ScaledKernel, after state: KernelState) -> KernelEvent {
        let index = generator.index()
        switch generator.random.below(4) {
        case 0:
            return .neighbourChanged(
                Neighbour(
                    interfaceIndex: index, address: generator.ipv4(index, 9), linkLayerAddress: "02:00:00:00:00:09"))
        case 1:
            let held = state.snapshot.neighbours
            guard !held.isEmpty else { return generator.event(after: state) }
            return .neighbourChanged(generator.random.pick(held))
        case 2:
            let held = state.snapshot.neighbours
            guard !held.isEmpty else {
                return .neighbourRemoved(interfaceIndex: index, address: generator.ipv4(index, 9))
            }
            let entry = generator.random.pick(held)
            return .neighbourRemoved(interfaceIndex: entry.interfaceIndex, address: entry.address)
        default:
            let held = state.snapshot.addresses
            guard !held.isEmpty else { return generator.event(after: state) }
            return .addressAdded(generator.random.pick(held))
        }
    }

    /// Whether `part` is `whole` with some events left out, in the same order.
    static func isSubsequence(_ part: [KernelEvent], of whole: [KernelEvent]) -> Bool {
        var position = whole.startIndex
        for event in part {
            guard let found = whole[position...].firstIndex(of: event) else { return false }
            position = found + 1
        }
        return true
    }

    /// The events of `whole` not in `part` (a subsequence of it), in order.
    static func removed(_ part: [KernelEvent], from whole: [KernelEvent]) -> [KernelEvent] {
        var removed: [KernelEvent] = []
        var rest = part[...]
        for event in whole {
            if rest.first == event {
                rest = rest.dropFirst()
            } else {
                removed.append(event)
            }
        }
        return removed
    }
}

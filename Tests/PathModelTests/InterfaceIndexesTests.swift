// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The small set of interface indexes (issue 41) against `Set<Int32>` as the oracle: random inserts and removals
/// across the inline capacity, from few indexes (held in place) to many (spilled into a set).
struct InterfaceIndexesTests {
    @Test(arguments: [3, 5, 40] as [Int32])
    func behavesAsASetOfIndexes(largest: Int32) {
        var random = SplitMix64(seed: 0x696e_6478 &+ UInt64(largest))
        for _ in 0..<200 {
            var indexes = InterfaceIndexes()
            var oracle = Set<Int32>()
            for _ in 0..<random.below(12) {
                let index = Int32(random.below(Int(largest)))
                if random.chance(30) {
                    #expect(indexes.remove(index) == (oracle.remove(index) != nil))
                } else {
                    #expect(indexes.insert(index) == oracle.insert(index).inserted)
                }
                #expect(indexes.count == oracle.count)
                #expect(indexes.isEmpty == oracle.isEmpty)
                #expect(indexes.sorted() == oracle.sorted())
                #expect((0..<largest).allSatisfy { indexes.contains($0) == oracle.contains($0) })
                // Equal to the same indexes filled in another order, whether held in place or spilled.
                let other = InterfaceIndexes(oracle.sorted().reversed())
                #expect(indexes == other)
                #expect(indexes.hashValue == other.hashValue)
            }
        }
    }

    @Test func unionsAndLiterals() {
        let few: InterfaceIndexes = [7, 3, 7]
        #expect(few.count == 2)
        #expect(few.union([3, 9]).sorted() == [3, 7, 9])
        let many = few.union(10...20)
        #expect(many.count == 13)
        #expect(many.sorted() == [3, 7] + Array(10...20))
        #expect(many != few)
        #expect(InterfaceIndexes() == [])
        #expect(few.description == "[3, 7]")
    }
}

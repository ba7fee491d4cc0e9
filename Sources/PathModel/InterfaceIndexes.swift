// SPDX-License-Identifier: Apache-2.0
/// A set of interface indexes as one change names them: the interfaces an event touched, those the kernel's choice
/// moved between, those whose network changed. Most often one or two: up to `inlineCapacity` are held in place,
/// without allocating or hashing, and more in a `Set<Int32>`. A route flip made six such sets, each allocated and
/// each index hashed with SipHash: 4,000 instructions of a flip (issue 41).
public struct InterfaceIndexes: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// How many are held in place.
    static let inlineCapacity = 4

    private var inline = SIMD4<Int32>()
    private var inlineCount = 0
    /// All of them, once more than `inlineCapacity` were held at once.
    private var spilled: Set<Int32>?

    public init() {}

    public init(arrayLiteral elements: Int32...) {
        self.init(elements)
    }

    public init(_ elements: some Sequence<Int32>) {
        for index in elements { insert(index) }
    }

    public var isEmpty: Bool { count == 0 }

    public var count: Int { spilled?.count ?? inlineCount }

    public func contains(_ index: Int32) -> Bool {
        if let spilled { return spilled.contains(index) }
        for position in 0..<inlineCount where inline[position] == index { return true }
        return false
    }

    /// Adds `index`; false if it was there.
    @discardableResult
    public mutating func insert(_ index: Int32) -> Bool {
        if spilled != nil { return spilled!.insert(index).inserted }
        if contains(index) { return false }
        if inlineCount < Self.inlineCapacity {
            inline[inlineCount] = index
            inlineCount += 1
        } else {
            var all = Set<Int32>(minimumCapacity: 2 * Self.inlineCapacity)
            for position in 0..<inlineCount { all.insert(inline[position]) }
            all.insert(index)
            spilled = all
            inlineCount = 0
        }
        return true
    }

    /// Removes `index`; false if it was not there.
    @discardableResult
    public mutating func remove(_ index: Int32) -> Bool {
        if spilled != nil { return spilled!.remove(index) != nil }
        for position in 0..<inlineCount where inline[position] == index {
            // The last takes its place: the order is no one's.
            inlineCount -= 1
            inline[position] = inline[inlineCount]
            return true
        }
        return false
    }

    public mutating func formUnion(_ other: some Sequence<Int32>) {
        for index in other { insert(index) }
    }

    public func union(_ other: some Sequence<Int32>) -> InterfaceIndexes {
        var union = self
        union.formUnion(other)
        return union
    }

    public static func == (lhs: InterfaceIndexes, rhs: InterfaceIndexes) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy(rhs.contains)
    }

    /// In index order, so that equal sets hash alike whatever order they were filled in.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sorted())
    }

    public var description: String { "\(sorted())" }

    public struct Iterator: IteratorProtocol {
        fileprivate let inline: SIMD4<Int32>
        fileprivate let inlineCount: Int
        fileprivate var position = 0
        fileprivate var spilled: Set<Int32>.Iterator?

        public mutating func next() -> Int32? {
            if spilled != nil { return spilled!.next() }
            guard position < inlineCount else { return nil }
            defer { position += 1 }
            return inline[position]
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(inline: inline, inlineCount: inlineCount, spilled: spilled?.makeIterator())
    }

    public var underestimatedCount: Int { count }
}

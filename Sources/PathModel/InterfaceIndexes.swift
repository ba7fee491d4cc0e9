// SPDX-License-Identifier: Apache-2.0
/// A set of interface indexes as one change names them: the interfaces an event touched, those the kernel's choice
/// moved between, those whose network changed. Most often one or two: up to `inlineCapacity` are held in place,
/// without allocating or hashing, and more in a `Set<Int32>`. A route flip made six such sets, each allocated and
/// each index hashed with SipHash: 4,000 instructions of a flip (issue 41). Inlinable, so that the daemon's
/// module gets it specialized: a generic `init` called from there ran through unspecialized witnesses (3,800
/// instructions to hold one index).
public struct InterfaceIndexes: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// How many are held in place.
    @usableFromInline static let inlineCapacity = 4

    @usableFromInline var inline = SIMD4<Int32>()
    @usableFromInline var inlineCount = 0
    /// All of them, once more than `inlineCapacity` were held at once.
    @usableFromInline var spilled: Set<Int32>?

    @inlinable public init() {}

    @inlinable
    public init(arrayLiteral elements: Int32...) {
        self.init(elements)
    }

    @inlinable
    public init(_ elements: some Sequence<Int32>) {
        for index in elements { insert(index) }
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable
    public var count: Int { spilled?.count ?? inlineCount }

    @inlinable
    public func contains(_ index: Int32) -> Bool {
        if let spilled { return spilled.contains(index) }
        for position in 0..<inlineCount where inline[position] == index { return true }
        return false
    }

    /// Adds `index`; false if it was there.
    @discardableResult
    @inlinable
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
    @inlinable
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

    @inlinable
    public mutating func formUnion(_ other: some Sequence<Int32>) {
        for index in other { insert(index) }
    }

    @inlinable
    public func union(_ other: some Sequence<Int32>) -> InterfaceIndexes {
        var union = self
        union.formUnion(other)
        return union
    }

    @inlinable
    public static func == (lhs: InterfaceIndexes, rhs: InterfaceIndexes) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy(rhs.contains)
    }

    /// In index order, so that equal sets hash alike whatever order they were filled in.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sorted())
    }

    @inlinable
    public var description: String { "\(sorted())" }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let inline: SIMD4<Int32>
        @usableFromInline let inlineCount: Int
        @usableFromInline var position = 0
        @usableFromInline var spilled: Set<Int32>.Iterator?

        @inlinable init(inline: SIMD4<Int32>, inlineCount: Int, spilled: Set<Int32>.Iterator?) {
            self.inline = inline
            self.inlineCount = inlineCount
            self.spilled = spilled
        }

        @inlinable
        public mutating func next() -> Int32? {
            if spilled != nil { return spilled!.next() }
            guard position < inlineCount else { return nil }
            defer { position += 1 }
            return inline[position]
        }
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(inline: inline, inlineCount: inlineCount, spilled: spilled?.makeIterator())
    }

    @inlinable
    public var underestimatedCount: Int { count }
}

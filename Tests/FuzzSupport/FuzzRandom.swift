// SPDX-License-Identifier: Apache-2.0
/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator whose sequence is fixed by the algorithm
/// alone, so a fuzz run with a given seed replays identically on every machine and Swift version.
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts at `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in 0..<bound (bound > 0). The modulo bias is negligible for the small bounds a fuzzer uses.
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with the given probability in percent.
    public mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// One element of a non-empty array.
    public mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }
}

// SPDX-License-Identifier: Apache-2.0
/// Makes fuzz inputs from real ones: each input is a seed (a fixture) changed by a few random edits, byte-level
/// (flips, inserts, deletions, duplicated runs, splices from another seed) and token-level (a word from the
/// parser's dictionary, a number far out of range), or now and then bytes from nothing at all. Deterministic for
/// a given seed of the generator.
public struct Mutator {
    /// Real inputs to start from.
    public let seeds: [[UInt8]]
    /// Words the parser gives meaning to ("expire", "{", "nameserver", …), spliced in whole.
    public let dictionary: [[UInt8]]
    /// No input is longer: a bound on time and memory per input, and well above every fixture.
    public let maximumLength: Int
    private var random: FuzzRandom

    /// Numbers that break careless arithmetic: past every integer width, negative, zero, signs alone.
    public static let troubleNumbers: [[UInt8]] = [
        "1000000000000", "99999999999999999999999999", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "18446744073709551616", "4294967295", "4294967296", "2147483648", "-1", "0", "-0",
        "+1", "-", "+", "00000000000000000000001", "1e999", "-1e-999", "0x7fffffff", "65535", "65536",
    ].map { Array($0.utf8) }

    /// Bytes that end, split or poison text: NUL, newlines, quotes, escapes, invalid UTF-8, a byte order mark.
    public static let troubleBytes: [[UInt8]] = [
        [0], [10], [13], [13, 10], [0x22], [0x27], [0x5c], [0x25], [0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80],
        [0xef, 0xbb, 0xbf], [0x7f], [0x1b], [0x09], [0x20],
    ]

    /// A mutator over `seeds` (at least one), with extra words for this parser.
    public init(seeds: [[UInt8]], dictionary: [[UInt8]] = [], maximumLength: Int = 1024, seed: UInt64) {
        precondition(!seeds.isEmpty, "a mutator needs at least one seed")
        self.seeds = seeds
        self.dictionary = dictionary + Self.troubleNumbers + Self.troubleBytes
        self.maximumLength = maximumLength
        self.random = FuzzRandom(seed: seed)
    }

    /// The next input.
    public mutating func next() -> [UInt8] {
        if random.chance(3) { return randomBytes(count: random.below(min(maximumLength, 512) + 1)) }
        var input = random.pick(seeds)
        if input.count > maximumLength { input.removeLast(input.count - maximumLength) }
        // Mostly few edits, so that inputs stay close enough to real ones to get deep into the parser.
        let edits = random.chance(70) ? 1 + random.below(3) : 1 + random.below(24)
        for _ in 0..<edits { mutate(&input) }
        if input.count > maximumLength { input.removeLast(input.count - maximumLength) }
        return input
    }

    private mutating func mutate(_ input: inout [UInt8]) {
        let position = random.below(input.count + 1)
        switch random.below(11) {
        case 0 where !input.isEmpty:
            input[min(position, input.count - 1)] ^= 1 << UInt8(random.below(8))
        case 1 where !input.isEmpty:
            input[min(position, input.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 2:
            input.insert(contentsOf: randomBytes(count: 1 + random.below(8)), at: position)
        case 3 where !input.isEmpty:
            let end = min(input.count, position + 1 + random.below(32))
            input.removeSubrange(min(position, input.count - 1)..<end)
        case 4 where !input.isEmpty:
            // A run repeated many times: long lines, deep nesting, many blocks.
            let start = min(position, input.count - 1)
            let run = Array(input[start..<min(input.count, start + 1 + random.below(16))])
            let times = random.chance(5) ? 1 + random.below(400) : 1 + random.below(8)
            for _ in 0..<times where input.count < maximumLength { input.insert(contentsOf: run, at: start) }
        case 5, 6:
            input.insert(contentsOf: random.pick(dictionary), at: position)
        case 7:
            replaceNumber(in: &input, near: position)
        case 8:
            // Splice: the start of this input and the rest of another seed.
            let other = random.pick(seeds)
            let cut = random.below(other.count + 1)
            input = Array(input[..<position]) + other[cut...]
        case 9 where !input.isEmpty:
            input.removeLast(random.below(input.count) + 1)
        default:
            input.insert(contentsOf: random.pick(Self.troubleBytes), at: position)
        }
    }

    /// Swaps the run of digits at or after `position` for a number that breaks arithmetic.
    private mutating func replaceNumber(in input: inout [UInt8], near position: Int) {
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard let start = input[position...].firstIndex(where: isDigit) ?? input.firstIndex(where: isDigit) else {
            input.insert(contentsOf: random.pick(Self.troubleNumbers), at: position)
            return
        }
        let end = input[start...].firstIndex { !isDigit($0) } ?? input.count
        input.replaceSubrange(start..<end, with: random.pick(Self.troubleNumbers))
    }

    private mutating func randomBytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in
            // Half printable ASCII, which text parsers look at more closely than binary.
            random.chance(50) ? UInt8(32 + random.below(95)) : UInt8(truncatingIfNeeded: random.next())
        }
    }
}

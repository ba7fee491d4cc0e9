// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// `lowercasedIfNeeded` skips the copy only when lowering would change nothing: it must equal `lowercased()` on
/// any text, upper-case letters outside ASCII included.
@Suite struct LowerCaseTests {
    @Test func equalsLowercasedOnAnyText() {
        let alphabet: [Character] = ["a", "f", "A", "F", "Z", "z", "0", "9", ":", "-", "É", "é", "Σ", "ß", "İ", "🛜"]
        var random = SplitMix64(seed: 0x6c6f_7765)
        for _ in 0..<5_000 {
            let text = String((0..<random.below(20)).map { _ in alphabet[random.below(alphabet.count)] })
            #expect(text.lowercasedIfNeeded == text.lowercased(), "\(text)")
        }
    }

    /// The eight-bytes-at-a-time test against the byte-by-byte definition: every byte value at every place of a
    /// word and of the tail after it, among lower-case letters and digits.
    @Test func everyByteAtEveryPlaceIsJudgedAsByItself() {
        for length in [1, 7, 8, 9, 15, 16, 17] {
            for place in 0..<length {
                for value in 0...255 {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    for position in bytes.indices where position % 3 == 1 { bytes[position] = UInt8(ascii: "7") }
                    bytes[place] = UInt8(value)
                    let expected = bytes.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) }
                    let judged = bytes.withUnsafeBufferPointer(String.isLowerCaseASCII)
                    #expect(judged == expected, "byte \(value) at \(place) of \(length)")
                }
            }
        }
    }

    @Test func aMixedCaseGatewayKeysAsLowerCase() {
        #expect(NetworkIdentity.wired(gateway: "AA:bb:0C:dd:ee:FF").key.value == "aa:bb:0c:dd:ee:ff")
        #expect(
            Neighbour(interfaceIndex: 2, address: IPAddress("10.0.0.1")!, linkLayerAddress: "02:AB:cd:00:00:01")
                .linkLayerAddress == "02:ab:cd:00:00:01")
    }
}

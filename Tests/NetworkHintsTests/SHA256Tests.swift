// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

private func hex(_ text: String) -> [UInt8] {
    HexText.decodePacked(text.filter { !$0.isWhitespace }[...])!
}

/// FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the long-message vector.
@Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
            + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
])
func sha256KnownAnswers(message: String, digest: String) {
    #expect(SHA256.hash(Array(message.utf8)).hexString == digest)
}

@Test func sha256OfOneMillionAs() {
    var hasher = SHA256()
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { hasher.update(chunk) }
    #expect(hasher.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
}

@Test func sha256IncrementalEqualsOneShotAcrossBlockBoundaries() {
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    for split in [0, 1, 55, 56, 63, 64, 65, 128, 299] {
        var hasher = SHA256()
        hasher.update(message[..<split])
        hasher.update(message[split...])
        #expect(hasher.finalize() == SHA256.hash(message), "split at \(split)")
    }
}

/// RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output, which we never do).
@Test(arguments: [
    (
        [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
        Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    (
        [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
    ),
    (
        Array(1...25), [UInt8](repeating: 0xcd, count: 50),
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    ),
    (
        [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
    (
        [UInt8](repeating: 0xaa, count: 131),
        Array(
            ("This is a test using a larger than block-size key and a larger than block-size data. The key needs to"
                + " be hashed before being used by the HMAC algorithm.").utf8),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
    ),
])
func hmacRFC4231(key: [UInt8], message: [UInt8], mac: String) {
    #expect(SHA256.hmac(key: key, message: message) == hex(mac))
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The address table keeps each interface's addresses as a sorted array that statuses share: after random adds,
/// replacements and removals it holds what a dictionary by key holds, in the order a status lists them, and says
/// what each write replaced or removed as the dictionary does.
@Suite struct AddressesByInterfaceTests {
    @Test func matchesADictionaryByKeyAfterRandomWrites() {
        var random = SystemRandomNumberGenerator()
        var table = AddressesByInterface()
        var model: [AddressKey: InterfaceAddress] = [:]
        let texts = ["192.0.2.1", "192.0.2.2", "198.51.100.7", "2001:db8::1", "2001:db8::2", "fe80::1"]
        for step in 0..<2_000 {
            let text = texts.randomElement(using: &random)!
            let address = makeAddress(
                Int32.random(in: 1...3, using: &random), text,
                prefix: [24, 32, 64, 128].randomElement(using: &random)!,
                tentative: Bool.random(using: &random))
            if Bool.random(using: &random) {
                #expect(table.update(address) == model.updateValue(address, forKey: address.key), "step \(step)")
            } else {
                #expect(table.remove(address) == model.removeValue(forKey: address.key), "step \(step)")
            }
            for index in Int32(1)...3 {
                let expected = model.values.filter { $0.interfaceIndex == index }.sorted {
                    ($0.address, $0.prefixLength) < ($1.address, $1.prefixLength)
                }
                #expect(table[index] == expected, "step \(step), interface \(index)")
            }
            #expect(Set(table.all) == Set(model.values))
        }
        // Equal contents, equal tables, whatever the order they were written in.
        var rebuilt = AddressesByInterface()
        for address in model.values.shuffled(using: &random) { rebuilt.update(address) }
        #expect(rebuilt == table)
        #expect(table.removeAll(of: 1) == model.values.contains { $0.interfaceIndex == 1 })
        #expect(table[1].isEmpty)
    }
}

// SPDX-License-Identifier: Apache-2.0
/// The addresses by interface index: `KernelState`'s address table. Each interface's are one array, sorted by
/// address and then prefix length, the order its status lists them in, so that a status derived again takes the
/// array as it is, a retain: as a dictionary per interface, every status copied the values out and sorted them,
/// an allocation and a sort on every route or link flip (issue 41). An interface holds a few addresses, found by
/// halving. No empty entry is kept, and the order is the addresses' own, so equal tables compare equal.
struct AddressesByInterface: Sendable, Hashable {
    private var entries: [Int32: [InterfaceAddress]] = [:]

    /// One interface's addresses, sorted by address and then prefix length.
    subscript(index: Int32) -> [InterfaceAddress] {
        entries[index] ?? []
    }

    /// Every address, interface by interface.
    var all: [InterfaceAddress] { entries.values.flatMap { $0 } }

    /// Adds an address, or replaces the one with its key (address and prefix length); returns the one replaced.
    @discardableResult
    mutating func update(_ address: InterfaceAddress) -> InterfaceAddress? {
        let (position, held) = Self.find(address, in: entries[address.interfaceIndex] ?? [])
        if held {
            let replaced = entries[address.interfaceIndex]![position]
            // Written only when it differs: a status may share the array, and a write would copy it.
            if replaced != address { entries[address.interfaceIndex]![position] = address }
            return replaced
        }
        entries[address.interfaceIndex, default: []].insert(address, at: position)
        return nil
    }

    /// Removes the address with `address`'s key; returns it, nil if there was none.
    @discardableResult
    mutating func remove(_ address: InterfaceAddress) -> InterfaceAddress? {
        guard let addresses = entries[address.interfaceIndex] else { return nil }
        let (position, held) = Self.find(address, in: addresses)
        guard held else { return nil }
        if addresses.count == 1 {
            entries[address.interfaceIndex] = nil
            return addresses[0]
        }
        return entries[address.interfaceIndex]!.remove(at: position)
    }

    /// Drops every address of a link; false if it had none.
    mutating func removeAll(of index: Int32) -> Bool {
        entries.removeValue(forKey: index) != nil
    }

    /// Where `address`'s key is or would go among `addresses`, and whether it is there.
    private static func find(
        _ address: InterfaceAddress, in addresses: [InterfaceAddress]
    ) -> (position: Int, held: Bool) {
        let key = (address.address, address.prefixLength)
        var low = 0
        var high = addresses.count
        while low < high {
            let middle = (low + high) / 2
            if (addresses[middle].address, addresses[middle].prefixLength) < key {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let held = low < addresses.count && addresses[low].address == key.0 && addresses[low].prefixLength == key.1
        return (low, held)
    }
}

// SPDX-License-Identifier: Apache-2.0
extension String {
    /// `lowercased()`, without a new string when there is nothing to lower: link-layer addresses come from the
    /// kernel's bytes already in lower case, and each identity's key, and each gateway neighbour, made a copy of
    /// one (about 500 instructions each, on every route flip of a wired network).
    var lowercasedIfNeeded: String {
        // Over the bytes in place: `utf8.allSatisfy` walked the view index by index, 600 instructions for a MAC.
        let alreadyLower =
            utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
            } ?? false
        return alreadyLower ? self : lowercased()
    }
}

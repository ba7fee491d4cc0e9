// SPDX-License-Identifier: Apache-2.0
/// An enum whose cases are named by strings (for the wire and the files) but hashed by case. The standard
/// library's `hash(into:)` for a `RawRepresentable` type hashes its raw value: a string, a hundred instructions,
/// in every address, route, route query and network key hashed on a path flip (issue 41). Equality already
/// compares cases.
public protocol HashedByCase: RawRepresentable, Hashable where RawValue == String {}

extension HashedByCase {
    /// The case's tag: a raw-value enum has no payload, so its one byte (none for a single case) is the case, and
    /// hash values need only agree within one process.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: self) { hasher.combine(bytes: $0) }
    }
}

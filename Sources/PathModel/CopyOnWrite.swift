// SPDX-License-Identifier: Apache-2.0
/// A value kept in a class box that copies share until one of them changes it: copying the owner takes one
/// reference instead of one per table. The tracker and the route follower copy the kernel's tables several times
/// on every change (to derive from them, to ask the kernel with them), and table by table those copies were 2,800
/// instructions of a route flip (issue 41).
@propertyWrapper
public struct CopyOnWrite<Value> {
    /// `@unchecked Sendable`: a box is changed only while one owner holds it (`wrappedValue`'s `_modify`), so a box
    /// that two owners (two threads) hold is only read.
    private final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    public var wrappedValue: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}

extension CopyOnWrite: Sendable where Value: Sendable {}

extension CopyOnWrite: Equatable where Value: Equatable {
    /// Copies that still share their box are equal without a look at the value.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.wrappedValue == rhs.wrappedValue
    }
}

extension CopyOnWrite: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}

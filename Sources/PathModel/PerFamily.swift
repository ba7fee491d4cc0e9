// SPDX-License-Identifier: Apache-2.0
/// One value per address family, in two stored fields: the kernel's choice is made on every change, and a
/// dictionary keyed by family hashed, allocated and grew for each of its two entries (a fifth of the choice's
/// instructions); an interface's status keeps the kernel's next hops the same way.
public struct PerFamily<Value: Hashable & Sendable>: Hashable, Sendable {
    private var ipv4: Value
    private var ipv6: Value

    public init(_ value: Value) {
        ipv4 = value
        ipv6 = value
    }

    public subscript(family: AddressFamily) -> Value {
        get { family == .ipv4 ? ipv4 : ipv6 }
        set {
            if family == .ipv4 { ipv4 = newValue } else { ipv6 = newValue }
        }
    }
}

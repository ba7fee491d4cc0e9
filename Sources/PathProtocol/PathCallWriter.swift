// SPDX-License-Identifier: Apache-2.0

/// GetPath and WatchPath calls written as bytes, as `VarlinkMethod.encodeCall` encodes them (members in byte order,
/// absent optionals left out): the one call of `pathctl check`, which every gated unit start runs, spent more on the
/// Encoder's generic metadata than on anything else it sent. `PathCallWriterTests` holds the two to the same bytes.
extension VarlinkMethod where Parameters == Methods.PathParameters {
    /// The call with its NUL; `more` asks for a stream.
    public func writeCall(_ parameters: Methods.PathParameters, more: Bool = false) -> [UInt8] {
        var out = JSONBytes(capacity: 256)
        out.raw("{\"method\":")
        out.quoted(name)
        if more { out.raw(",\"more\":true") }
        out.raw(",\"parameters\":{")
        if let requirements = parameters.requirements {
            out.raw("\"requirements\":")
            write(requirements, to: &out)
        }
        out.raw("}}")
        return out.terminated()
    }

    private func write(_ requirements: WirePathRequirements, to out: inout JSONBytes) {
        var first = true
        func key(_ name: StaticString) {
            out.raw(first ? "{" : ",")
            out.raw(name)
            first = false
        }
        func flag(_ name: StaticString, _ value: Bool?) {
            guard let value else { return }
            key(name)
            out.bool(value)
        }
        func text(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            out.quoted(value)
        }
        flag("\"allowUltraConstrained\":", requirements.allowUltraConstrained)
        text("\"family\":", requirements.family)
        flag("\"prohibitConstrained\":", requirements.prohibitConstrained)
        flag("\"prohibitExpensive\":", requirements.prohibitExpensive)
        flag("\"prohibitRoaming\":", requirements.prohibitRoaming)
        if let types = requirements.prohibitedInterfaceTypes {
            key("\"prohibitedInterfaceTypes\":")
            out.strings(types)
        }
        text("\"requiredInterface\":", requirements.requiredInterface)
        text("\"requiredInterfaceType\":", requirements.requiredInterfaceType)
        flag("\"systemRouting\":", requirements.systemRouting)
        out.raw(first ? "{}" : "}")
    }
}

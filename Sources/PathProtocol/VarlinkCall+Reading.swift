// SPDX-License-Identifier: Apache-2.0
import JSON

// The calls pathmond serves most, read without the Decoder (`JSONShapeError`): every call was parsed twice and
// decoded through Codable's generic containers, its envelope, then its parameters, a quarter of what a thousand
// WatchFlow subscribers and the GetPath calls beside them cost the daemon. The fields and rules are the synthesized
// `Decodable`'s, which `CallReadingTests` holds these readers to on encoded calls and on mutations of them; the
// daemon decodes a call they refuse as before, so its errors read the same.

extension VarlinkCall {
    public init(json members: JSONMembers) throws(JSONShapeError) {
        method = try members.required("method").string()
        more = try members.optional("more")?.bool()
        oneway = try members.optional("oneway")?.bool()
        upgrade = try members.optional("upgrade")?.bool()
    }
}

extension Methods.PathParameters {
    public init(json: JSONValue) throws(JSONShapeError) {
        requirements = try json.object().optional("requirements").map(WirePathRequirements.init(json:))
    }
}

extension Methods.FlowParameters {
    public init(json: JSONValue) throws(JSONShapeError) {
        flow = try WireFlow(json: try json.object().required("flow"))
    }
}

extension WireFlow {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        interface = try members.required("interface").string()
        localAddress = try members.required("localAddress").string()
        remoteAddress = try members.optional("remoteAddress")?.string()
        requirements = try members.optional("requirements").map(WirePathRequirements.init(json:))
        bound = try members.optional("bound")?.bool()
        interfaceIndex = try members.optional("interfaceIndex")?.integer()
    }
}

extension WirePathRequirements {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        requiredInterfaceType = try members.optional("requiredInterfaceType")?.string()
        prohibitedInterfaceTypes = try members.optional("prohibitedInterfaceTypes")?.strings()
        requiredInterface = try members.optional("requiredInterface")?.string()
        prohibitExpensive = try members.optional("prohibitExpensive")?.bool()
        prohibitConstrained = try members.optional("prohibitConstrained")?.bool()
        family = try members.optional("family")?.string()
        allowUltraConstrained = try members.optional("allowUltraConstrained")?.bool()
        prohibitRoaming = try members.optional("prohibitRoaming")?.bool()
        systemRouting = try members.optional("systemRouting")?.bool()
    }
}

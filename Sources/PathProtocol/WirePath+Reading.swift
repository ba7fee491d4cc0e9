// SPDX-License-Identifier: Apache-2.0
import JSON

// The path reply read without the Decoder (`JSONShapeError`): every client reads a path, and a one-shot one
// (`pathctl check`, which every gated unit start runs) paid more for the Decoder's generic metadata than for
// anything else it did. The fields and rules are the synthesized `Decodable`'s, which `WirePathReadingTests` holds
// these readers to on the daemon's own replies and on mutations of them.

extension Methods.PathReply {
    public init(json: JSONValue) throws(JSONShapeError) {
        self.init(path: try WirePath(json: try json.object().required("path")))
    }
}

extension WirePath {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        var interfaces: [WirePathInterface] = []
        for interface in try members.required("availableInterfaces").array() {
            interfaces.append(try WirePathInterface(json: interface))
        }
        let addresses = try members.required("gateways").strings()
        status = try members.required("status").string()
        unsatisfiedReason = try members.optional("unsatisfiedReason")?.string()
        availableInterfaces = interfaces
        isExpensive = try members.required("isExpensive").bool()
        isConstrained = try members.required("isConstrained").bool()
        supportsIPv4 = try members.required("supportsIPv4").bool()
        supportsIPv6 = try members.required("supportsIPv6").bool()
        supportsDNS = try members.required("supportsDNS").bool()
        gateways = addresses
        isUltraConstrained = try members.optional("isUltraConstrained")?.bool()
        isRoaming = try members.optional("isRoaming")?.bool()
        captivePortal = try members.optional("captivePortal")?.string()
        captivePortalURI = try members.optional("captivePortalURI")?.string()
        captivePortalAPI = try members.optional("captivePortalAPI").map(WireCaptivePortalAPI.init(json:))
        linkQuality = try members.optional("linkQuality").map(WireLinkQuality.init(json:))
        dataLimit = try members.optional("dataLimit").map(WireDataLimit.init(json:))
    }
}

extension WirePathInterface {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        index = try members.required("index").integer()
        name = try members.required("name").string()
        type = try members.required("type").string()
        isExpensive = try members.required("isExpensive").bool()
        isConstrained = try members.required("isConstrained").bool()
        isTunnel = try members.optional("isTunnel")?.bool()
        isUltraConstrained = try members.optional("isUltraConstrained")?.bool()
        isRoaming = try members.optional("isRoaming")?.bool()
        captivePortal = try members.optional("captivePortal")?.string()
        linkQuality = try members.optional("linkQuality").map(WireLinkQuality.init(json:))
        dataLimit = try members.optional("dataLimit").map(WireDataLimit.init(json:))
    }
}

extension WireLinkQuality {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        grade = try members.required("grade").string()
        source = try members.required("source").string()
        speedMbps = try members.optional("speedMbps")?.integer()
        fullDuplex = try members.optional("fullDuplex")?.bool()
        signalDBm = try members.optional("signalDBm")?.integer()
        expectedThroughputKbps = try members.optional("expectedThroughputKbps")?.integer()
        transmitBitrateKbps = try members.optional("transmitBitrateKbps")?.integer()
        accessTechnologies = try members.optional("accessTechnologies")?.integer()
        signalQualityPercent = try members.optional("signalQualityPercent")?.integer()
    }
}

extension WireDataLimit {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        limitBytes = try members.required("limitBytes").integer()
        warningPercent = try members.required("warningPercent").integer()
        cycle = try members.required("cycle").string()
        usedBytes = try members.required("usedBytes").integer()
        cycleStart = try members.required("cycleStart").string()
        cycleEnd = try members.required("cycleEnd").string()
        level = try members.required("level").string()
    }
}

extension WireCaptivePortalAPI {
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.object()
        captive = try members.required("captive").bool()
        secondsRemaining = try members.optional("secondsRemaining")?.integer()
        bytesRemaining = try members.optional("bytesRemaining")?.integer()
        userPortalURL = try members.optional("userPortalURL")?.string()
        venueInfoURL = try members.optional("venueInfoURL")?.string()
    }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

extension StreamedReplyWriter {
    /// A path reply written from the model's path, without a `WirePath` made first: the hub encodes one on every
    /// change of the path, and the wire value's strings, arrays and optionals cost a route flip 2,700 instructions
    /// to make and give back (issue 41). The bytes are `pathReply(WirePath(path))`'s, which the tests check.
    public static func pathReply(_ path: Path, continues: Bool = true) -> [UInt8] {
        var out = JSONBytes()
        out.raw(continues ? "{\"continues\":true,\"parameters\":{\"path\":" : "{\"parameters\":{\"path\":")
        write(path, to: &out)
        out.raw("}}")
        return out.terminated()
    }

    // Keys in byte order, as `write(_: WirePath, to:)`. The model always has the attributes the wire keeps optional
    // for older servers (portal, roaming, ultra-constrained), so they are always written.

    private static func write(_ path: Path, to out: inout JSONBytes) {
        out.raw("{\"availableInterfaces\":[")
        for position in path.availableInterfaces.indices {
            if position > 0 { out.raw(",") }
            write(path.availableInterfaces[position], to: &out)
        }
        out.raw("],\"captivePortal\":")
        out.quoted(path.captivePortal.rawValue)
        if let api = path.captivePortalAPI {
            out.raw(",\"captivePortalAPI\":")
            write(WireCaptivePortalAPI(api), to: &out)
        }
        if let uri = path.captivePortalURI {
            out.raw(",\"captivePortalURI\":")
            out.quoted(uri)
        }
        if let limit = path.dataLimit {
            out.raw(",\"dataLimit\":")
            write(WireDataLimit(limit), to: &out)
        }
        out.raw(",\"gateways\":[")
        for (position, gateway) in path.gateways.enumerated() {
            if position > 0 { out.raw(",") }
            out.quoted(gateway.description)
        }
        out.raw("],\"isConstrained\":")
        out.bool(path.isConstrained)
        out.raw(",\"isExpensive\":")
        out.bool(path.isExpensive)
        out.raw(",\"isRoaming\":")
        out.bool(path.isRoaming)
        out.raw(",\"isUltraConstrained\":")
        out.bool(path.isUltraConstrained)
        if let quality = path.linkQuality {
            out.raw(",\"linkQuality\":")
            write(WireLinkQuality(quality), to: &out)
        }
        writePathEnd(
            status: path.status.rawValue, supportsDNS: path.supportsDNS, supportsIPv4: path.supportsIPv4,
            supportsIPv6: path.supportsIPv6, unsatisfiedReason: path.unsatisfiedReason?.rawValue, to: &out)
    }

    private static func write(_ interface: PathInterface, to out: inout JSONBytes) {
        out.raw("{\"captivePortal\":")
        out.quoted(interface.captivePortal.rawValue)
        if let limit = interface.dataLimit {
            out.raw(",\"dataLimit\":")
            write(WireDataLimit(limit), to: &out)
        }
        out.raw(",\"index\":")
        out.integer(interface.index)
        out.raw(",\"isConstrained\":")
        out.bool(interface.isConstrained)
        out.raw(",\"isExpensive\":")
        out.bool(interface.isExpensive)
        out.raw(",\"isRoaming\":")
        out.bool(interface.isRoaming)
        out.raw(",\"isTunnel\":")
        out.bool(interface.isTunnel)
        out.raw(",\"isUltraConstrained\":")
        out.bool(interface.isUltraConstrained)
        if let quality = interface.linkQuality {
            out.raw(",\"linkQuality\":")
            write(WireLinkQuality(quality), to: &out)
        }
        out.raw(",\"name\":")
        out.quoted(interface.name)
        out.raw(",\"type\":")
        out.quoted(interface.kind.rawValue)
        out.raw("}")
    }
}

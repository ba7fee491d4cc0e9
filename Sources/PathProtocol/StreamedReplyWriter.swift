// SPDX-License-Identifier: Apache-2.0
import JSON

/// Writes the replies pathmond streams on every change (a WatchPath path, a WatchFlow status) straight into bytes.
/// These are encoded once per distinct interest on each change, so with a thousand flows watched their cost is the
/// daemon's cost per event; a Codable encoder spends most of it on reflection and boxing. The output is byte for byte
/// what `VarlinkCodec` writes (sorted keys, unescaped slashes, absent optionals left out), which the tests check.
public enum StreamedReplyWriter {
    /// `{"continues":true,"parameters":{"path":{...}}}` and its NUL; without `continues`, GetPath's one reply.
    public static func pathReply(_ path: WirePath, continues: Bool = true) -> [UInt8] {
        var out = JSONBytes()
        out.raw(continues ? "{\"continues\":true,\"parameters\":{\"path\":" : "{\"parameters\":{\"path\":")
        write(path, to: &out)
        out.raw("}}")
        return out.terminated()
    }

    /// `{"continues":true,"parameters":{"status":{...}}}` and its NUL.
    public static func flowReply(_ status: WireFlowStatus) -> [UInt8] {
        // About 90 bytes, more with a better interface's addresses: room grows if needed.
        var out = JSONBytes(capacity: 160)
        out.raw("{\"continues\":true,\"parameters\":{\"status\":")
        write(status, to: &out)
        out.raw("}}")
        return out.terminated()
    }

    // Keys in sorted order, as VarlinkCodec writes them (byte order).

    private static func write(_ path: WirePath, to out: inout JSONBytes) {
        out.raw("{\"availableInterfaces\":[")
        for (position, interface) in path.availableInterfaces.enumerated() {
            if position > 0 { out.raw(",") }
            write(interface, to: &out)
        }
        out.raw("]")
        if let captivePortal = path.captivePortal {
            out.raw(",\"captivePortal\":")
            out.quoted(captivePortal)
        }
        if let api = path.captivePortalAPI {
            out.raw(",\"captivePortalAPI\":")
            write(api, to: &out)
        }
        if let uri = path.captivePortalURI {
            out.raw(",\"captivePortalURI\":")
            out.quoted(uri)
        }
        if let limit = path.dataLimit {
            out.raw(",\"dataLimit\":")
            write(limit, to: &out)
        }
        out.raw(",\"gateways\":[")
        for (position, gateway) in path.gateways.enumerated() {
            if position > 0 { out.raw(",") }
            out.quoted(gateway)
        }
        out.raw("],\"isConstrained\":")
        out.bool(path.isConstrained)
        out.raw(",\"isExpensive\":")
        out.bool(path.isExpensive)
        if let isRoaming = path.isRoaming {
            out.raw(",\"isRoaming\":")
            out.bool(isRoaming)
        }
        if let isUltraConstrained = path.isUltraConstrained {
            out.raw(",\"isUltraConstrained\":")
            out.bool(isUltraConstrained)
        }
        if let quality = path.linkQuality {
            out.raw(",\"linkQuality\":")
            write(quality, to: &out)
        }
        writePathEnd(
            status: path.status, supportsDNS: path.supportsDNS, supportsIPv4: path.supportsIPv4,
            supportsIPv6: path.supportsIPv6, unsatisfiedReason: path.unsatisfiedReason, to: &out)
    }

    /// A path's last keys and its closing brace, the same for a wire path and the model's.
    static func writePathEnd(
        status: String, supportsDNS: Bool, supportsIPv4: Bool, supportsIPv6: Bool, unsatisfiedReason: String?,
        to out: inout JSONBytes
    ) {
        out.raw(",\"status\":")
        out.quoted(status)
        out.raw(",\"supportsDNS\":")
        out.bool(supportsDNS)
        out.raw(",\"supportsIPv4\":")
        out.bool(supportsIPv4)
        out.raw(",\"supportsIPv6\":")
        out.bool(supportsIPv6)
        if let unsatisfiedReason {
            out.raw(",\"unsatisfiedReason\":")
            out.quoted(unsatisfiedReason)
        }
        out.raw("}")
    }

    private static func write(_ interface: WirePathInterface, to out: inout JSONBytes) {
        out.raw("{")
        if let captivePortal = interface.captivePortal {
            out.raw("\"captivePortal\":")
            out.quoted(captivePortal)
            out.raw(",")
        }
        if let limit = interface.dataLimit {
            out.raw("\"dataLimit\":")
            write(limit, to: &out)
            out.raw(",")
        }
        out.raw("\"index\":")
        out.integer(interface.index)
        out.raw(",\"isConstrained\":")
        out.bool(interface.isConstrained)
        out.raw(",\"isExpensive\":")
        out.bool(interface.isExpensive)
        if let isRoaming = interface.isRoaming {
            out.raw(",\"isRoaming\":")
            out.bool(isRoaming)
        }
        if let isTunnel = interface.isTunnel {
            out.raw(",\"isTunnel\":")
            out.bool(isTunnel)
        }
        if let isUltraConstrained = interface.isUltraConstrained {
            out.raw(",\"isUltraConstrained\":")
            out.bool(isUltraConstrained)
        }
        if let quality = interface.linkQuality {
            out.raw(",\"linkQuality\":")
            write(quality, to: &out)
        }
        out.raw(",\"name\":")
        out.quoted(interface.name)
        out.raw(",\"type\":")
        out.quoted(interface.type)
        out.raw("}")
    }

    static func write(_ limit: WireDataLimit, to out: inout JSONBytes) {
        out.raw("{\"cycle\":")
        out.quoted(limit.cycle)
        out.raw(",\"cycleEnd\":")
        out.quoted(limit.cycleEnd)
        out.raw(",\"cycleStart\":")
        out.quoted(limit.cycleStart)
        out.raw(",\"level\":")
        out.quoted(limit.level)
        out.raw(",\"limitBytes\":")
        out.integer(limit.limitBytes)
        out.raw(",\"usedBytes\":")
        out.integer(limit.usedBytes)
        out.raw(",\"warningPercent\":")
        out.integer(limit.warningPercent)
        out.raw("}")
    }

    private static func write(_ status: WireFlowStatus, to out: inout JSONBytes) {
        // Each optional key ends with its comma: `betterPathAvailable` always follows (no string is concatenated,
        // which allocated on every flow's reply).
        out.raw("{")
        if let interface = status.betterInterface {
            out.raw("\"betterInterface\":")
            out.quoted(interface)
            out.raw(",")
        }
        if let addresses = status.betterInterfaceAddresses {
            out.raw("\"betterInterfaceAddresses\":")
            out.strings(addresses)
            out.raw(",")
        }
        out.raw("\"betterPathAvailable\":")
        out.bool(status.betterPathAvailable)
        out.raw(",\"isViable\":")
        out.bool(status.isViable)
        out.raw("}")
    }
}

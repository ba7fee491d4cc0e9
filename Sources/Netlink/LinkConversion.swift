// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWLINK / RTM_DELLINK → `.linkChanged` / `.linkRemoved`. Device facts are added later by the watcher.
enum LinkConversion {
    static func events(
        from message: OpaquePointer, header: UnsafeMutablePointer<nlmsghdr>, removed: Bool
    ) -> KernelMessage.Conversion {
        guard let info = KernelMessage.payload(of: header, as: ifinfomsg.self) else { return .malformed }
        // Bridge ports also announce themselves with AF_BRIDGE link messages; only AF_UNSPEC describes the link.
        guard info.ifi_family == UInt8(AF_UNSPEC) else { return .notRelevant }
        guard info.ifi_index > 0 else { return .malformed }
        if removed { return .converted([.linkRemoved(index: info.ifi_index)]) }
        // Wireless extensions announce every scan with an RTM_NEWLINK that carries IFLA_WIRELESS and little else;
        // taken as a link description it would blank the operstate, kind and address until the next real one.
        if nlmsg_find_attr(header, Int32(MemoryLayout<ifinfomsg>.size), Int32(IFLA_WIRELESS)) != nil {
            return .notRelevant
        }
        var link: Link?
        _ = KernelMessage.parseObject(message) { object in link = Self.link(from: object) }
        guard var link else { return .malformed }
        if link.linkKind.map(TunnelEndpointParser.attributes.keys.contains) == true {
            let length = Int(nlmsg_datalen(header)) - MemoryLayout<ifinfomsg>.size
            if length > 0 {
                let start = UnsafeRawPointer(nlmsg_data(header)) + MemoryLayout<ifinfomsg>.size
                let bytes = Array(UnsafeRawBufferPointer(start: start, count: length))
                link.tunnel = TunnelEndpointParser.endpoints(inLinkAttributes: bytes)
            }
        }
        return .converted([.linkChanged(link)])
    }

    /// Copies a borrowed `struct rtnl_link *` into a `Link`.
    static func link(from object: OpaquePointer) -> Link? {
        let index = rtnl_link_get_ifindex(object)
        guard index > 0, let name = rtnl_link_get_name(object) else { return nil }
        return Link(
            index: index,
            name: String(cString: name),
            flags: LinkFlags(rawValue: rtnl_link_get_flags(object)),
            operState: OperState(rawValue: rtnl_link_get_operstate(object)) ?? .unknown,
            linkKind: rtnl_link_get_type(object).map { String(cString: $0) },
            hardwareType: UInt16(truncatingIfNeeded: rtnl_link_get_arptype(object)),
            hardwareAddress: KernelMessage.bytes(of: rtnl_link_get_addr(object)).map(hardwareAddressText)
        )
    }

    /// "02:00:5e:10:00:01": two lowercase hex digits per byte, as `ip link` prints them.
    /// "aa:bb:...": written into the string's storage (a neighbour's answer names its gateway's address on every
    /// look-up; two-character strings joined cost 11,000 instructions per address).
    static func hardwareAddressText(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count * 3 - 1) { buffer in
            var count = 0
            for (index, byte) in bytes.enumerated() {
                if index > 0 {
                    buffer[count] = UInt8(ascii: ":")
                    count += 1
                }
                buffer[count] = asciiHexDigit(byte >> 4)
                buffer[count + 1] = asciiHexDigit(byte & 0xf)
                count += 2
            }
            return count
        }
    }
}

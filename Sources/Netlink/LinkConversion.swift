// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWLINK / RTM_DELLINK → `.linkChanged` / `.linkRemoved`. Device facts are added later by the watcher.
///
/// The attributes are read with libnl's attribute parser, in one pass into a table, not with its link object
/// parser: that one allocates an object and reads every attribute, the statistics and each family's configuration
/// included, 20,000 instructions a message, a tenth of what a carrier flip cost (issue 41). A link's status needs
/// six facts: its index, flags and hardware type (the ifinfomsg), its name, operational state, kind and address.
enum LinkConversion {
    /// IFLA_MAX and IFLA_INFO_MAX as these headers know them (macros the importer does not bring in): a newer
    /// kernel's attributes past them are left out of the tables, and none of them is read.
    private static let linkAttributeMax = Int32(__IFLA_MAX) - 1
    private static let linkInfoAttributeMax = Int32(__IFLA_INFO_MAX) - 1

    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        guard let info = KernelMessage.payload(of: header, as: ifinfomsg.self) else { return .malformed }
        // Bridge ports also announce themselves with AF_BRIDGE link messages; only AF_UNSPEC describes the link.
        guard info.ifi_family == UInt8(AF_UNSPEC) else { return .notRelevant }
        guard info.ifi_index > 0 else { return .malformed }
        if removed { return .converted(.linkRemoved(index: info.ifi_index)) }
        return withUnsafeTemporaryAllocation(
            of: UnsafeMutablePointer<nlattr>?.self, capacity: Int(linkAttributeMax) + 1
        ) { table in
            table.initialize(repeating: nil)
            let attributes = table.baseAddress!
            guard nlmsg_parse(header, Int32(MemoryLayout<ifinfomsg>.size), attributes, linkAttributeMax, nil) >= 0
            else { return .malformed }
            // Wireless extensions announce every scan with an RTM_NEWLINK that carries IFLA_WIRELESS and little
            // else; taken as a link description it would blank the operstate, kind and address until the next one.
            if table[Int(IFLA_WIRELESS)] != nil { return .notRelevant }
            guard var link = link(info, attributes: table) else { return .malformed }
            if let kind = link.linkKind, TunnelEndpointParser.attributes.keys.contains(kind) {
                let length = Int(nlmsg_datalen(header)) - MemoryLayout<ifinfomsg>.size
                if length > 0 {
                    let start = UnsafeRawPointer(nlmsg_data(header)) + MemoryLayout<ifinfomsg>.size
                    let bytes = Array(UnsafeRawBufferPointer(start: start, count: length))
                    link.tunnel = TunnelEndpointParser.endpoints(inLinkAttributes: bytes)
                }
            }
            return .converted(.linkChanged(link))
        }
    }

    /// The link a message describes, from its ifinfomsg and its attributes by type; nil without a name.
    static func link(_ info: ifinfomsg, attributes: UnsafeMutableBufferPointer<UnsafeMutablePointer<nlattr>?>)
        -> Link?
    {
        guard let name = string(attributes[Int(IFLA_IFNAME)]) else { return nil }
        var operState = OperState.unknown
        if let attribute = attributes[Int(IFLA_OPERSTATE)], nla_len(attribute) >= 1 {
            operState = OperState(rawValue: UInt8(nla_get_u8(attribute))) ?? .unknown
        }
        return Link(
            index: info.ifi_index, name: name, flags: LinkFlags(rawValue: info.ifi_flags), operState: operState,
            linkKind: kind(attributes[Int(IFLA_LINKINFO)]), hardwareType: info.ifi_type,
            hardwareAddress: bytes(attributes[Int(IFLA_ADDRESS)]).map(hardwareAddressText))
    }

    /// IFLA_LINKINFO's IFLA_INFO_KIND ("veth", "wireguard"), if the link has one.
    private static func kind(_ linkInfo: UnsafeMutablePointer<nlattr>?) -> String? {
        guard let linkInfo else { return nil }
        return withUnsafeTemporaryAllocation(
            of: UnsafeMutablePointer<nlattr>?.self, capacity: Int(linkInfoAttributeMax) + 1
        ) { table in
            table.initialize(repeating: nil)
            guard nla_parse_nested(table.baseAddress!, linkInfoAttributeMax, linkInfo, nil) >= 0 else { return nil }
            return string(table[Int(IFLA_INFO_KIND)])
        }
    }

    /// A string attribute's text, if it is NUL-terminated within its length.
    private static func string(_ attribute: UnsafeMutablePointer<nlattr>?) -> String? {
        guard let attribute else { return nil }
        let value = UnsafeRawBufferPointer(start: nla_data(attribute), count: Int(nla_len(attribute)))
        guard let end = value.firstIndex(of: 0) else { return nil }
        return String(decoding: value[..<end], as: UTF8.self)
    }

    /// A binary attribute's bytes; nil when absent or empty.
    private static func bytes(_ attribute: UnsafeMutablePointer<nlattr>?) -> [UInt8]? {
        guard let attribute, nla_len(attribute) > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: nla_data(attribute), count: Int(nla_len(attribute))))
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

    /// Whether `text` is `bytes` as `hardwareAddressText` spells them; false for no bytes. Compared in place: a
    /// gateway's entry is checked against the model's on every message the kernel sends about it.
    static func hardwareAddressText(_ text: String, spells bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        let spelled = text.utf8.withContiguousStorageIfAvailable { characters in
            guard characters.count == bytes.count * 3 - 1 else { return false }
            for (index, byte) in bytes.enumerated() {
                let at = index * 3
                guard index == 0 || characters[at - 1] == UInt8(ascii: ":"),
                    characters[at] == asciiHexDigit(byte >> 4), characters[at + 1] == asciiHexDigit(byte & 0xf)
                else { return false }
            }
            return true
        }
        return spelled ?? (text == hardwareAddressText(Array(bytes)))
    }
}

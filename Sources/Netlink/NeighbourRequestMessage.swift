// SPDX-License-Identifier: Apache-2.0
import PathModel

/// RTM_GETNEIGH for one gateway (is its link-layer address known?) and RTM_NEWNEIGH with NTF_USE (resolve it),
/// as bytes, with the reading of the answer. NTF_USE asks the kernel to do what it does for the first packet to an
/// unresolved neighbour: create the entry and send its own ARP request or neighbour solicitation, with its own
/// retries and timers. pathmond crafts no packet and binds no socket; the answer arrives as a neighbour
/// notification like any other.
enum NeighbourRequestMessage {
    static let newNeighbour: UInt16 = 28  // RTM_NEWNEIGH
    static let getNeighbour: UInt16 = 30  // RTM_GETNEIGH
    static let useFlag: UInt8 = 0x01  // NTF_USE
    /// NUD_REACHABLE, STALE, DELAY, PROBE, PERMANENT: a link-layer address to trust (as NeighbourConversion).
    static let usableStates: UInt16 = 0x02 | 0x04 | 0x08 | 0x10 | 0x80

    /// RTM_GETNEIGH for one entry.
    static func lookUp(_ gateway: GatewayKey, sequence: UInt32) -> [UInt8] {
        message(type: getNeighbour, flags: 0x01, gateway: gateway, ntfFlags: 0, sequence: sequence)
    }

    /// RTM_NEWNEIGH with NTF_USE, NLM_F_CREATE and an acknowledgement: start resolving.
    static func resolve(_ gateway: GatewayKey, sequence: UInt32) -> [UInt8] {
        message(type: newNeighbour, flags: 0x01 | 0x04 | 0x400, gateway: gateway, ntfFlags: useFlag, sequence: sequence)
    }

    private static func message(
        type: UInt16, flags: UInt16, gateway: GatewayKey, ntfFlags: UInt8, sequence: UInt32
    ) -> [UInt8] {
        typealias Bytes = RouteLookupMessage
        // Written into one buffer sized beforehand: joined from a dozen small arrays, the request was nine
        // allocations on every route flip that brought a gateway.
        let address = gateway.address.bytes
        let attributeSize = 4 + (address.count + 3) & ~3
        var message: [UInt8] = []
        message.reserveCapacity(16 + 12 + attributeSize)
        Bytes.appendLittleEndian(UInt32(16 + 12 + attributeSize), to: &message)
        Bytes.appendLittleEndian(type, to: &message)
        Bytes.appendLittleEndian(flags, to: &message)
        Bytes.appendLittleEndian(sequence, to: &message)
        Bytes.appendLittleEndian(UInt32(0), to: &message)
        // ndmsg: family and padding, the interface, ndm_state NUD_NONE, ndm_flags, ndm_type.
        message += [gateway.address.family == .ipv4 ? 2 : 10, 0, 0, 0]
        Bytes.appendLittleEndian(gateway.interfaceIndex, to: &message)
        message += [0, 0, ntfFlags, 0]
        // NDA_DST, padded to four bytes.
        Bytes.appendLittleEndian(UInt16(4 + address.count), to: &message)
        Bytes.appendLittleEndian(UInt16(1), to: &message)
        message += address
        message += repeatElement(0, count: attributeSize - 4 - address.count)
        return message
    }

    /// What the kernel answered to a look-up.
    enum Answer: Equatable {
        /// The entry has a link-layer address in a usable state.
        case resolved(Neighbour)
        /// No entry, or one without a usable address (incomplete, failed, none).
        case unresolved
        /// Not the answer to this request.
        case unrelated
    }

    static func answer(_ bytes: [UInt8], to gateway: GatewayKey, sequence: UInt32) -> Answer {
        typealias Bytes = RouteLookupMessage
        guard bytes.count >= 16, let length = Bytes.u32(bytes, 0), length >= 16, Int(length) <= bytes.count,
            let type = Bytes.u16(bytes, 4), Bytes.u32(bytes, 8) == sequence
        else { return .unrelated }
        if type == RouteLookupMessage.error { return .unresolved }
        // Read where it lies (the ndmsg at 16, its attributes from 28): copied into a new array, and every
        // attribute into another, the answer cost more than the request and its system calls (a route flip that
        // brings a gateway reads one).
        let end = Int(length)
        guard type == newNeighbour, end >= 28, let state = Bytes.u16(bytes, 16 + 8) else { return .unrelated }
        guard state & usableStates != 0, let linkLayer = Self.linkLayerAddress(in: bytes, from: 28, to: end) else {
            return .unresolved
        }
        return .resolved(
            Neighbour(
                interfaceIndex: gateway.interfaceIndex, address: gateway.address,
                linkLayerAddress: LinkConversion.hardwareAddressText(Array(linkLayer))))
    }

    /// NDA_LLADDR's value among the attributes in `start..<end`, if it has one and it is not empty.
    private static func linkLayerAddress(in bytes: [UInt8], from start: Int, to end: Int) -> ArraySlice<UInt8>? {
        typealias Bytes = RouteLookupMessage
        var position = start
        while position + 4 <= end, let length = Bytes.u16(bytes, position), let kind = Bytes.u16(bytes, position + 2) {
            let size = Int(length)
            guard size >= 4, position + size <= end else { return nil }
            if kind & 0x3fff == 2 { return size > 4 ? bytes[(position + 4)..<(position + size)] : nil }
            position += (size + 3) & ~3
        }
        return nil
    }
}

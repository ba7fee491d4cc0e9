// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// RTM_NEWNEXTHOP / RTM_DELNEXTHOP → `.nexthopChanged` / `.nexthopRemoved`, parsed by hand from the message bytes.
enum NexthopConversion {
    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        let length = Int(nlmsg_datalen(header))
        guard length >= 0 else { return .malformed }
        let payload = Array(UnsafeRawBufferPointer(start: nlmsg_data(header), count: length))
        switch NexthopMessage.parse(payload) {
        case .nexthop(let nexthop):
            return .converted(removed ? .nexthopRemoved(id: nexthop.id) : .nexthopChanged(nexthop))
        case .notRelevant:
            return .notRelevant
        case .malformed:
            return .malformed
        }
    }
}

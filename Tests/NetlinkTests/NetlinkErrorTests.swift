// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import Netlink

@Suite struct NetlinkErrorTests {
    @Test func namesLibnlCodes() {
        #expect(NetlinkError.overflow.rawValue == 5)
        #expect(NetlinkError.dumpInterrupted.rawValue == 33)
        #expect(NetlinkError(code: -5) == .overflow)
        #expect(NetlinkError.system(errno: 105) == .overflow)  // ENOBUFS folds into NLE_NOMEM
    }

    @Test func describesItselfWithLibnlsText() {
        #expect(NetlinkError.overflow.description == "Out of memory (NLE 5)")
        #expect(NetlinkError.exists.description.hasPrefix("Object exists"))
    }
}

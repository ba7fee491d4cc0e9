// SPDX-License-Identifier: Apache-2.0
/// The scenarios' namespaces and commands come from NetlinkTestSupport, which the Netlink tests share: one helper,
/// imported once for every file of the suite.
@_exported import NetlinkTestSupport

/// The name the scenarios have always used (it shadows the Netlink library's namespace runner, which they call as
/// `Netlink.NetworkNamespace`).
typealias NetworkNamespace = TestNetworkNamespace

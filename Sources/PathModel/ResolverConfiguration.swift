// SPDX-License-Identifier: Apache-2.0
/// The DNS servers the machine's resolver uses: from resolv.conf, and per link from systemd-resolved.
public struct ResolverConfiguration: Sendable, Hashable {
    /// Servers that serve every link: resolv.conf's nameservers (for systemd-resolved's stub, its upstreams).
    public var globalServers: [IPAddress]
    /// Servers systemd-resolved uses on one link, by interface index.
    public var linkServers: [Int32: [IPAddress]]

    public init(globalServers: [IPAddress] = [], linkServers: [Int32: [IPAddress]] = [:]) {
        self.globalServers = globalServers
        self.linkServers = linkServers
    }

    /// Whether names can be resolved over a path that uses these interfaces.
    public func supportsDNS(over interfaces: some Sequence<Int32>) -> Bool {
        !globalServers.isEmpty || interfaces.contains { linkServers[$0]?.isEmpty == false }
    }
}

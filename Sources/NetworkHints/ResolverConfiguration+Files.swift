// SPDX-License-Identifier: Apache-2.0
import PathModel

extension ResolverConfiguration {
    /// The configuration the files describe, without reading any of them.
    ///
    /// - When resolv.conf names systemd-resolved's stub (127.0.0.53 or 127.0.0.54), the stub itself is not a
    ///   server: resolved's upstreams are. resolved writes no file of global servers alone; its
    ///   /run/systemd/resolve/resolv.conf lists every server it knows (global ones, then each link's, then
    ///   fallback servers when there are none), so the global servers are those of that file that belong to no
    ///   link. A server configured both globally and on a link therefore counts for the link only.
    /// - A link's servers count only when the link is a default route for DNS (`isDefaultRoute`): a link that
    ///   serves only its routing domains cannot resolve names in general.
    /// - Without the stub, resolv.conf is all there is: the C library sends every query to its nameservers
    ///   whatever the interface, so they are all global, a loopback resolver (dnsmasq on 127.0.0.1) included.
    ///
    /// - Parameters:
    ///   - resolvConf: The text of /etc/resolv.conf (through its symbolic link); nil when it is missing.
    ///   - resolvedResolvConf: The text of /run/systemd/resolve/resolv.conf; nil when it is missing.
    ///   - links: Each link's settings by interface index, from resolved's and networkd's state files.
    public init(resolvConf: String?, resolvedResolvConf: String?, links: [Int32: ResolverLinkSettings]) {
        let configured = resolvConf.map(ResolverFile.nameservers(resolvConf:)) ?? []
        let usesStub = configured.contains { ResolverFile.resolvedStubAddresses.contains($0) }
        var global = configured.filter { !ResolverFile.resolvedStubAddresses.contains($0) }
        guard usesStub else {
            self.init(globalServers: global.uniqued())
            return
        }
        let linkAddresses = Set(links.values.flatMap(\.servers))
        let upstream = resolvedResolvConf.map(ResolverFile.nameservers(resolvConf:)) ?? []
        // The stub addresses never appear there, but a hand-edited file must not make the stub its own upstream.
        global += upstream.filter { !linkAddresses.contains($0) && !ResolverFile.resolvedStubAddresses.contains($0) }
        var linkServers: [Int32: [IPAddress]] = [:]
        for (index, settings) in links where settings.isDefaultRoute && !settings.servers.isEmpty {
            linkServers[index] = settings.servers.uniqued()
        }
        self.init(globalServers: global.uniqued(), linkServers: linkServers)
    }
}

extension Array where Element == IPAddress {
    /// In order, each address once: resolv.conf may repeat one, and a repeat is not a second server.
    func uniqued() -> [IPAddress] {
        var seen: Set<IPAddress> = []
        return filter { seen.insert($0).inserted }
    }
}

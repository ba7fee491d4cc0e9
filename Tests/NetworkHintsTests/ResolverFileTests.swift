// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import NetworkHints

private let resolverFixtures = fixtureRoot + "/resolver"

/// An address from text the test knows is valid.
func address(_ text: String) -> IPAddress {
    guard let address = IPAddress(text) else { fatalError("not an address: \(text)") }
    return address
}

@Test func resolvConfNameserversWithCommentsAndZone() {
    let servers = ResolverFile.nameservers(resolvConf: fixtureText("resolver/plain/resolv.conf"))
    // The zone of fe80::1%eth0 is dropped; the repeated 192.0.2.1 is kept here (the combination drops repeats).
    let expected = ["192.0.2.1", "2001:db8::1", "fe80::1", "127.0.0.1", "192.0.2.1"].map(address)
    #expect(servers == expected)
}

@Test func resolvConfMalformedLinesAreSkipped() {
    let servers = ResolverFile.nameservers(resolvConf: fixtureText("resolver/malformed/resolv.conf"))
    #expect(servers == [address("198.51.100.1")])
}

@Test(arguments: [
    ("192.0.2.53", "192.0.2.53"),
    ("192.0.2.53:853", "192.0.2.53"),
    ("192.0.2.53#dns.example", "192.0.2.53"),
    ("192.0.2.53:853#dns.example", "192.0.2.53"),
    ("2001:db8::53", "2001:db8::53"),
    ("[2001:db8::53]:853", "2001:db8::53"),
    ("[2001:db8::53]:853#dns.example", "2001:db8::53"),
    ("fe80::1%3", "fe80::1"),
    ("[fe80::1]:853%3#dns.example", "fe80::1"),
])
func systemdServerText(text: String, expected: String) {
    #expect(ResolverFile.serverAddress(systemdText: text[...]) == address(expected))
}

@Test(arguments: ["", "bogus", "[2001:db8::53", "999.1.1.1", "#dns.example", "%3"])
func systemdServerTextRejected(text: String) {
    #expect(ResolverFile.serverAddress(systemdText: text[...]) == nil)
}

@Test func resolvedLinkFilesForTwoLinks() {
    let three = ResolverFile.resolvedLink(fixtureText("resolver/tree/run/systemd/resolve/netif/3"))
    #expect(three.servers == ["192.0.2.53", "2001:db8::53", "fe80::1"].map(address))
    #expect(three.searchDomains == ["home.arpa"])
    #expect(three.defaultRoute == nil)
    #expect(three.isDefaultRoute)
    let four = ResolverFile.resolvedLink(fixtureText("resolver/tree/run/systemd/resolve/netif/4"))
    #expect(four.servers == ["198.51.100.53", "2001:db8:4::53"].map(address))
    #expect(four.routeOnlyDomains == ["corp.example"])
    // Route-only domains would make it a non-default route; the explicit DEFAULT_ROUTE=yes wins.
    #expect(four.defaultRoute == true)
    #expect(four.isDefaultRoute)
    let vpn = ResolverFile.resolvedLink(fixtureText("resolver/tree/run/systemd/resolve/netif/5"))
    #expect(vpn.routeOnlyDomains == ["vpn.example", "10.in-addr.arpa"])
    #expect(!vpn.isDefaultRoute)
}

@Test func resolvedLinkMalformedLines() {
    let settings = ResolverFile.resolvedLink(fixtureText("resolver/malformed/netif"))
    #expect(settings.servers == ["192.0.2.53", "2001:db8::54"].map(address))
    #expect(settings.defaultRoute == nil)
    #expect(settings.searchDomains.isEmpty && settings.routeOnlyDomains.isEmpty)
}

@Test func networkdLinkFile() {
    let managed = ResolverFile.networkdLink(fixtureText("resolver/tree/run/systemd/netif/links/2"))
    #expect(managed == ResolverLinkSettings(servers: [address("192.0.2.1")], searchDomains: ["lan"]))
    let unmanaged = ResolverFile.networkdLink(fixtureText("resolver/tree/run/systemd/netif/links/1"))
    #expect(unmanaged == ResolverLinkSettings())
    let routed = ResolverFile.networkdLink("DNS=10.0.0.1\nROUTE_DOMAINS=corp.example\nDNS_DEFAULT_ROUTE=no\n")
    #expect(routed.routeOnlyDomains == ["corp.example"] && routed.defaultRoute == false && !routed.isDefaultRoute)
    #expect(ResolverLinkSettings(routeOnlyDomains: ["."]).isDefaultRoute)
}

@Test func plainResolvConfIsAllGlobal() {
    let configuration = ResolverConfiguration(
        resolvConf: fixtureText("resolver/plain/resolv.conf"),
        resolvedResolvConf: fixtureText("resolver/tree/run/systemd/resolve/resolv.conf"),
        links: [3: ResolverLinkSettings(servers: [address("192.0.2.53")])])
    // No stub: resolved's files do not matter; the loopback resolver counts; the repeat is dropped.
    let expected = ["192.0.2.1", "2001:db8::1", "fe80::1", "127.0.0.1"].map(address)
    #expect(configuration == ResolverConfiguration(globalServers: expected))
}

@Test func stubResolvConfUsesResolvedUpstreams() {
    let root = resolverFixtures + "/tree/run/systemd"
    let links: [Int32: ResolverLinkSettings] = [
        2: ResolverFile.networkdLink(fixtureText("resolver/tree/run/systemd/netif/links/2")),
        3: ResolverFile.resolvedLink(fixtureText("resolver/tree/run/systemd/resolve/netif/3")),
        5: ResolverFile.resolvedLink(fixtureText("resolver/tree/run/systemd/resolve/netif/5")),
    ]
    let configuration = ResolverConfiguration(
        resolvConf: fixtureText("resolver/tree/run/systemd/resolve/stub-resolv.conf"),
        resolvedResolvConf: HintFilesForTests.read(root + "/resolve/resolv.conf").map {
            String(decoding: $0, as: UTF8.self)
        },
        links: links)
    // Link 4's server is not among the links given, so it is taken for a global one.
    #expect(configuration.globalServers == ["9.9.9.9", "198.51.100.53"].map(address))
    #expect(configuration.linkServers == [2: [address("192.0.2.1")], 3: links[3]!.servers])
}

@Test func stubWithoutResolvedFilesHasNoServers() {
    let configuration = ResolverConfiguration(
        resolvConf: "nameserver 127.0.0.53\nnameserver 127.0.0.54\n", resolvedResolvConf: nil, links: [:])
    #expect(configuration == ResolverConfiguration())
    #expect(ResolverConfiguration(resolvConf: nil, resolvedResolvConf: nil, links: [:]) == ResolverConfiguration())
}

@Test func stubBesideAnotherServerKeepsBoth() {
    let configuration = ResolverConfiguration(
        resolvConf: "nameserver 127.0.0.53\nnameserver 127.0.0.1\n", resolvedResolvConf: "nameserver 192.0.2.1\n",
        links: [:])
    #expect(configuration.globalServers == ["127.0.0.1", "192.0.2.1"].map(address))
}

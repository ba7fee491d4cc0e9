// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import NetworkHints

private let tree = fixtureRoot + "/resolver/tree"

@Test func readerOnFixtureTree() {
    let reader = ResolverConfigurationReader(
        resolvConf: tree + "/etc/resolv.conf", resolvedDirectory: tree + "/run/systemd/resolve",
        networkdLinksDirectory: tree + "/run/systemd/netif/links")
    let configuration = reader.read()
    // /etc/resolv.conf is a symbolic link to the stub file: resolved's upstreams count, less the links' servers.
    #expect(configuration.globalServers == [address("9.9.9.9")])
    // Link 2 from networkd, 3 and 4 from resolved; 5 serves only its routing domains; ".#5x1b2c3" is skipped.
    #expect(
        configuration.linkServers == [
            2: [address("192.0.2.1")],
            3: ["192.0.2.53", "2001:db8::53", "fe80::1"].map(address),
            4: ["198.51.100.53", "2001:db8:4::53"].map(address),
        ])
}

@Test func readerWithMissingFiles() {
    let reader = ResolverConfigurationReader(
        resolvConf: "/nonexistent/resolv.conf", resolvedDirectory: "/nonexistent/resolve",
        networkdLinksDirectory: "/nonexistent/links")
    #expect(reader.read() == ResolverConfiguration())
    // The stub with resolved's directory missing: no servers, no crash.
    let stubOnly = ResolverConfigurationReader(
        resolvConf: tree + "/run/systemd/resolve/stub-resolv.conf", resolvedDirectory: "/nonexistent/resolve",
        networkdLinksDirectory: "/nonexistent/links")
    #expect(stubOnly.read() == ResolverConfiguration())
    // A directory where a file should be is read as absent.
    let directory = ResolverConfigurationReader(
        resolvConf: tree + "/etc", resolvedDirectory: tree, networkdLinksDirectory: tree)
    #expect(directory.read() == ResolverConfiguration())
}

@Test func readerDirectoriesToWatch() {
    let reader = ResolverConfigurationReader(
        resolvConf: tree + "/etc/resolv.conf", resolvedDirectory: tree + "/run/systemd/resolve",
        networkdLinksDirectory: tree + "/run/systemd/netif/links")
    // The symbolic link's directory and its target's; resolved's appears once though it is both.
    #expect(
        reader.directoriesToWatch
            == [
                tree + "/etc", HintFiles.canonicalPath(tree + "/run/systemd/resolve")!, tree + "/run/systemd/resolve",
                tree + "/run/systemd/resolve/netif", tree + "/run/systemd/netif/links",
            ].reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } })
    #expect(ResolverConfigurationReader.parent(of: "/resolv.conf") == "/")
    #expect(ResolverConfigurationReader.parent(of: "resolv.conf") == ".")
}

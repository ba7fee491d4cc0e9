// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import NetworkHints

// resolv.conf, systemd-resolved's link files and systemd-networkd's link files.

private let resolverSeeds = [
    "resolver/tree/run/systemd/resolve/resolv.conf", "resolver/tree/run/systemd/resolve/stub-resolv.conf",
    "resolver/tree/run/systemd/resolve/netif/3", "resolver/tree/run/systemd/resolve/netif/4",
    "resolver/tree/run/systemd/resolve/netif/5", "resolver/tree/run/systemd/netif/links/1",
    "resolver/tree/run/systemd/netif/links/2", "resolver/malformed/resolv.conf", "resolver/malformed/netif",
    "resolver/plain/resolv.conf",
].map(fixtureBytes)

private let resolverWords = [
    "nameserver ", "nameserver\t", "SERVERS=", "DNS=", "DOMAINS=", "ROUTE_DOMAINS=", "DEFAULT_ROUTE=",
    "DNS_DEFAULT_ROUTE=", "~", "[", "]", "%", "#", ":853", "::", "fe80::1%eth0", "[2001:db8::53]:853%3", "::ffff:",
    "127.0.0.53", "yes", "no", ".",
].map { Array($0.utf8) }

@Test func resolvConfParserSurvivesMutatedFiles() {
    let mutator = Mutator(seeds: resolverSeeds, dictionary: resolverWords, seed: 0x2E50_1C0F)
    let report = Fuzz.run("resolv-conf", count: 100_000, mutator: mutator) { input in
        !ResolverFile.nameservers(resolvConf: String(decoding: input, as: UTF8.self)).isEmpty
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

@Test func resolverLinkFileParsersSurviveMutatedFiles() {
    let mutator = Mutator(seeds: resolverSeeds, dictionary: resolverWords, seed: 0x2E50_11A4)
    let report = Fuzz.run("resolver-link-files", count: 100_000, mutator: mutator) { input in
        let text = String(decoding: input, as: UTF8.self)
        let resolved = ResolverFile.resolvedLink(text)
        let networkd = ResolverFile.networkdLink(text)
        return !resolved.servers.isEmpty || !networkd.servers.isEmpty
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Reads the resolver configuration the machine uses from its files: resolv.conf and, when it names
/// systemd-resolved's stub, resolved's upstream servers and each link's servers (see
/// `ResolverConfiguration.init(resolvConf:resolvedResolvConf:links:)` for how they combine). A missing or
/// unreadable file is read as absent; nothing here throws or crashes on what it finds on disk.
public struct ResolverConfigurationReader: Sendable {
    /// The resolv.conf the C library reads; opened through its symbolic link, as the C library does.
    public var resolvConf: String
    /// systemd-resolved's runtime directory: resolv.conf (every upstream server) and netif/IFINDEX.
    public var resolvedDirectory: String
    /// systemd-networkd's per-link state files, where resolved finds the servers of the links networkd manages
    /// (resolved saves its own netif/ file only for the others).
    public var networkdLinksDirectory: String

    /// A reader over the usual locations, or fixture trees in tests.
    public init(
        resolvConf: String = "/etc/resolv.conf", resolvedDirectory: String = "/run/systemd/resolve",
        networkdLinksDirectory: String = "/run/systemd/netif/links"
    ) {
        self.resolvConf = resolvConf
        self.resolvedDirectory = resolvedDirectory
        self.networkdLinksDirectory = networkdLinksDirectory
    }

    /// The configuration as the files say now.
    public func read() -> ResolverConfiguration {
        let resolvConfText = HintFiles.readText(resolvConf)
        let usesStub = resolvConfText.map { text in
            ResolverFile.nameservers(resolvConf: text).contains { ResolverFile.resolvedStubAddresses.contains($0) }
        }
        // Without the stub, resolved's files do not matter: skip reading them.
        guard usesStub == true else {
            return ResolverConfiguration(resolvConf: resolvConfText, resolvedResolvConf: nil, links: [:])
        }
        return ResolverConfiguration(
            resolvConf: resolvConfText, resolvedResolvConf: HintFiles.readText(resolvedDirectory + "/resolv.conf"),
            links: links())
    }

    /// Every link's settings, from networkd's file and resolved's file for that index together.
    func links() -> [Int32: ResolverLinkSettings] {
        var links = Self.linkFiles(in: networkdLinksDirectory, parse: ResolverFile.networkdLink)
        for (index, settings) in Self.linkFiles(in: resolvedDirectory + "/netif", parse: ResolverFile.resolvedLink) {
            links[index] = links[index].map { settings.merging($0) } ?? settings
        }
        return links
    }

    /// The files of a directory named by a positive interface index, parsed; other names (the writers' temporary
    /// files among them) are skipped.
    static func linkFiles(
        in directory: String, parse: (String) -> ResolverLinkSettings
    ) -> [Int32: ResolverLinkSettings] {
        var links: [Int32: ResolverLinkSettings] = [:]
        for name in HintFiles.list(directory) {
            guard name.allSatisfy({ ("0"..."9").contains($0) }), let index = Int32(name), index > 0,
                let text = HintFiles.readText(directory + "/" + name)
            else { continue }
            links[index] = parse(text)
        }
        return links
    }

    /// The directories whose entries decide what `read()` answers, for a watcher: the one holding resolv.conf,
    /// the one holding whatever its symbolic link points at now, resolved's directory and its netif/, and
    /// networkd's links directory.
    var directoriesToWatch: [String] {
        var directories = [Self.parent(of: resolvConf)]
        if let target = HintFiles.canonicalPath(resolvConf) { directories.append(Self.parent(of: target)) }
        directories += [resolvedDirectory, resolvedDirectory + "/netif", networkdLinksDirectory]
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }

    /// The directory part of a path; "/" for a file at the root, "." for a bare name.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

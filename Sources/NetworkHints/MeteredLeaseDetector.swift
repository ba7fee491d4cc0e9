// SPDX-License-Identifier: Apache-2.0
/// Finds interfaces whose DHCP lease says "metered": ANDROID_METERED in option 43 (a phone's tethering server puts
/// it there when its own uplink is mobile data), or the Apple Personal Hotspot numbering. Reads whatever lease
/// files the machine's DHCP client left: systemd-networkd's, NetworkManager's (internal client and dhclient
/// plugin) and plain dhclient's. Missing directories mean nothing to read; unreadable or corrupt files are
/// skipped; nothing here throws or crashes on what it finds on disk.
public struct MeteredLeaseDetector: Sendable {
    /// systemd-networkd's lease directory, one file per interface index.
    public var networkdLeaseDirectory: String
    /// NetworkManager's state directory (internal-UUID-IFACE.lease, dhclient-UUID-IFACE.lease).
    public var networkManagerDirectory: String
    /// Directories of plain dhclient leases: Debian's /var/lib/dhcp (dhclient.IFACE.leases, dhclient.leases) and
    /// Fedora's /var/lib/dhclient (dhclient-UUID-IFACE.lease from initscripts or NetworkManager).
    public var dhclientDirectories: [String]
    /// Whether the Apple Personal Hotspot numbering counts as a sign (see `HotspotSigns`).
    public var detectsApplePersonalHotspot: Bool

    /// A detector over the usual locations, or fixture trees in tests.
    public init(
        networkdLeaseDirectory: String = "/run/systemd/netif/leases",
        networkManagerDirectory: String = "/var/lib/NetworkManager",
        dhclientDirectories: [String] = ["/var/lib/dhcp", "/var/lib/dhclient"],
        detectsApplePersonalHotspot: Bool = true
    ) {
        self.networkdLeaseDirectory = networkdLeaseDirectory
        self.networkManagerDirectory = networkManagerDirectory
        self.dhclientDirectories = dhclientDirectories
        self.detectsApplePersonalHotspot = detectsApplePersonalHotspot
    }

    /// Where DHCP clients write the leases this detector reads: a change in any of them may change its answer.
    public var directoriesToWatch: [String] {
        [networkdLeaseDirectory, networkManagerDirectory] + dhclientDirectories
    }

    /// The indices of `links` whose current lease says "metered". `currentAddresses` (IPv4 dotted quads by
    /// index), when given for a link, rules out leases for another address: dhclient and NetworkManager keep old
    /// leases on disk, and a phone's lease from an hour ago must not make today's LAN expensive. `now` is seconds
    /// since the epoch (the clock by default) and rules out expired dhclient leases.
    public func meteredInterfaces(
        links: [(index: Int32, name: String)], currentAddresses: [Int32: Set<String>] = [:], now: Int64? = nil
    ) -> Set<Int32> {
        metered(currentLeases(links: links, currentAddresses: currentAddresses, now: now))
    }

    /// The indices whose lease (from `currentLeases`) says "metered".
    public func metered(_ leases: [Int32: DHCPLease]) -> Set<Int32> {
        Set(
            leases.compactMap { index, lease in
                lease.isMetered || (detectsApplePersonalHotspot && HotspotSigns.leaseLooksLikeHotspot(lease))
                    ? index : nil
            })
    }

    /// The lease each link is most likely running on, by index: networkd's (kept in /run and removed with the
    /// lease, so always current), else the dhclient lease that runs out last, else NetworkManager's internal one.
    public func currentLeases(
        links: [(index: Int32, name: String)], currentAddresses: [Int32: Set<String>] = [:], now: Int64? = nil
    ) -> [Int32: DHCPLease] {
        let now = now ?? HintFiles.now()
        let indexByName = Dictionary(links.map { ($0.name, $0.index) }, uniquingKeysWith: { first, _ in first })
        var candidates: [Int32: [DHCPLease]] = [:]
        for link in links {
            guard let text = HintFiles.readText(networkdLeaseDirectory + "/\(link.index)") else { continue }
            if let lease = LeaseFile.parseNetworkd(text, interfaceIndex: link.index) {
                candidates[link.index, default: []].append(lease)
            }
        }
        for lease in networkManagerLeases() + dhclientLeases() {
            guard let name = lease.interfaceName, let index = indexByName[name] else { continue }
            candidates[index, default: []].append(lease)
        }
        var chosen: [Int32: DHCPLease] = [:]
        for (index, leases) in candidates {
            let usable = leases.filter { lease in
                guard lease.isCurrent(at: now) else { return false }
                guard let addresses = currentAddresses[index], let address = lease.address else { return true }
                return addresses.contains(address)
            }
            // Ties go to the later candidate: dhclient appends, so the last block is the newest.
            let best = usable.indices.max { first, second in
                let (firstRank, secondRank) = (Self.rank(usable[first]), Self.rank(usable[second]))
                return firstRank < secondRank || (firstRank == secondRank && first < second)
            }
            if let best { chosen[index] = usable[best] }
        }
        return chosen
    }

    /// Orders candidates: networkd first, then dhclient by expiry (a lease that never expires ranks highest), then
    /// NetworkManager's internal client.
    private static func rank(_ lease: DHCPLease) -> (Int, Int64) {
        switch lease.writer {
        case .networkd: return (3, 0)
        case .dhclient: return (2, lease.expiry ?? Int64.max)
        case .networkManagerInternal: return (1, 0)
        }
    }

    private func networkManagerLeases() -> [DHCPLease] {
        HintFiles.list(networkManagerDirectory).flatMap { fileName -> [DHCPLease] in
            guard let (writer, interface) = LeaseFile.networkManagerInterface(fileName: fileName),
                let text = HintFiles.readText(networkManagerDirectory + "/" + fileName)
            else { return [] }
            switch writer {
            case .dhclient: return LeaseFile.parseDhclient(text, interface: interface)
            case .networkManagerInternal:
                return LeaseFile.parseNetworkManagerInternal(text, interface: interface).map { [$0] } ?? []
            case .networkd: return []
            }
        }
    }

    private func dhclientLeases() -> [DHCPLease] {
        dhclientDirectories.flatMap { directory in
            HintFiles.list(directory).flatMap { fileName -> [DHCPLease] in
                guard let interface = Self.dhclientInterface(fileName: fileName),
                    let text = HintFiles.readText(directory + "/" + fileName)
                else { return [] }
                return LeaseFile.parseDhclient(text, interface: interface.isEmpty ? nil : interface)
            }
        }
    }

    /// The interface a dhclient lease file is kept for: "" for the shared dhclient.leases (its blocks name their
    /// interface), the name in "dhclient.IFACE.leases" or "dhclient-UUID-IFACE.lease"; nil for DHCPv6 files
    /// (dhclient6…) and anything that is not a dhclient lease.
    static func dhclientInterface(fileName: String) -> String? {
        guard fileName.hasPrefix("dhclient"), !fileName.hasPrefix("dhclient6") else { return nil }
        if fileName == "dhclient.leases" { return "" }
        if fileName.hasPrefix("dhclient."), fileName.hasSuffix(".leases") {
            let name = fileName.dropFirst("dhclient.".count).dropLast(".leases".count)
            return name.isEmpty ? nil : String(name)
        }
        if let (writer, interface) = LeaseFile.networkManagerInterface(fileName: fileName), writer == .dhclient {
            return interface
        }
        // initscripts name a file without a profile "dhclient--IFACE.lease".
        if fileName.hasPrefix("dhclient--"), fileName.hasSuffix(".lease") {
            let name = fileName.dropFirst("dhclient--".count).dropLast(".lease".count)
            return name.isEmpty ? nil : String(name)
        }
        return nil
    }
}

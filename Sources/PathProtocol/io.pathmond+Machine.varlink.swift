// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: the machine as pathctl shows it: addresses, routes, interfaces, networks, the daemon; and a client's requirements and flows.
    static let machineDefinition = """
        # An address on an interface.
        type Address (
          # The address in text form, e.g. "192.0.2.10" or "2001:db8::10".
          address: string,
          prefixLength: int,
          # The kernel's scope: global, site, link, host or nowhere.
          scope: string,
          # Duplicate address detection has not passed (or failed): not usable yet.
          isTentative: bool
        )

        # A route towards the internet (a default route, or half of a split default) out of an interface.
        type Route (
          # The destination prefix, e.g. "0.0.0.0/0" or "::/0".
          destination: string,
          # The next-hop router; absent for a device route.
          gateway: ?string,
          metric: int,
          # The routing table; 254 is main.
          table: int
        )

        # One interface and how far it is from carrying traffic.
        type Interface (
          index: int,
          name: string,
          type: InterfaceType,
          isExpensive: bool,
          # What decided isExpensive: the user's setting (either way), the interface's type (cellular,
          # tethering, configured), a hotspot's DHCP lease, NetworkManager's Metered, roaming (a modem
          # registered on a visited network; newer servers only), or (for a tunnel) its carrier being
          # expensive. Absent when nothing called it expensive and the user set nothing.
          expensiveSource: ?(user, interfaceClass, dhcpLease, networkManager, roaming, tunnelCarrier),
          # down: administratively down; noCarrier: up without carrier; noAddress: running without a
          # usable address; noRoute: addressed without a default route; usable: carries traffic.
          state: (down, noCarrier, noAddress, noRoute, usable),
          # RFC 2863 operational state as the kernel reports it, e.g. "up", "dormant", "lower-layer-down".
          operState: string,
          # The rtnetlink link kind ("veth", "bridge", "tun", ...); absent for hardware devices.
          linkKind: ?string,
          # The link-layer address, if the link has one.
          hardwareAddress: ?string,
          addresses: []Address,
          routes: []Route,
          supportsIPv4: bool,
          supportsIPv6: bool,
          # The key of the network it is attached to (see Network), when known.
          network: ?string,
          # That network's name for people, as Network's displayName.
          networkName: ?string,
          # Its network is in Low Data Mode.
          isConstrained: bool,
          # A VPN or tunnel (see PathInterface.isTunnel). Absent from older servers.
          isTunnel: ?bool,
          # For a tunnel: the interface its own packets leave by (the kernel's route to its endpoint).
          tunnelCarrier: ?string,
          # Ultra-constrained: the user's SetUltraConstrained, the configuration's ultra-constrained key
          # for its name, or its carrier's. Absent from older servers.
          isUltraConstrained: ?bool,
          # Its modem is registered roaming (see PathInterface.isRoaming). Absent from older servers.
          isRoaming: ?bool,
          # See PathInterface.captivePortal and Path.captivePortalURI. Absent from older servers.
          captivePortal: ?(unknown, captive, open, limited),
          captivePortalURI: ?string,
          # Its link's quality (a tunnel: its carrier's). Absent when nothing was measured.
          linkQuality: ?LinkQuality,
          # Its network's data limit and usage this cycle (pathctl set-limit); absent without one.
          dataLimit: ?DataLimit
        )

        # A network pathmond remembers (the user set something for it) or sees attached now.
        type Network (
          # The stable key: "wifi:" and the SSID (bytes outside printable ASCII, and "%", as %XX),
          # "cellular:" and a keyed hash of the SIM, or "wired:" and the gateway's link-layer address.
          key: string,
          # A name for people: the user's name for it if any, else e.g. Wi-Fi "Home" or
          # wired network via gateway 192.0.2.1 (de:b0:5b:9a:11:94).
          displayName: string,
          # Low Data Mode as the user set it; absent when never set.
          constrained: ?bool,
          # Expensive as the user set it, winning over detection; absent when left to detection.
          expensive: ?bool,
          # The interfaces attached to it now.
          interfaces: []string,
          # The name the user gave it (SetNetworkName); displayName is then this name. Absent when none.
          name: ?string,
          # Ultra-constrained as the user set it (SetUltraConstrained); absent when never set.
          ultraConstrained: ?bool
        )

        # Who pathmond is and how its state file is.
        type DaemonStatus (
          version: string,
          # The policy file.
          policyFile: string,
          # What went wrong loading it (the bad file is kept aside, never deleted); absent when all is well.
          policyProblem: ?string,
          # The inode of pathmond's network namespace (/proc/PID/ns/net): a client in another namespace
          # can tell that the network described is not its own.
          networkNamespace: ?int
        )

        # What a client may use, as NWParameters say it. Every field is optional: absent, no restriction.
        type PathRequirements (
          # Only interfaces of this type.
          requiredInterfaceType: ?InterfaceType,
          # No interfaces of these types.
          prohibitedInterfaceTypes: ?[]InterfaceType,
          # Only the interface of this name.
          requiredInterface: ?string,
          # No expensive interfaces.
          prohibitExpensive: ?bool,
          # No interfaces on Low Data Mode networks.
          prohibitConstrained: ?bool,
          # The IP version the traffic needs.
          family: ?(any, ipv4, ipv6),
          # Ultra-constrained interfaces (satellite links) may be used. Without it (and with no
          # requirements at all) such an interface is left out as if it did not exist: the path, and the
          # reason it is unsatisfied, are those without it. Older servers ignore it.
          allowUltraConstrained: ?bool,
          # No roaming interfaces (Android's NOT_ROAMING). Older servers ignore it.
          prohibitRoaming: ?bool,
          # Follow the system's routing (root's), as the GIO module and the gates do, rather than the
          # calling user's: `uidrange` rules may send a user's packets elsewhere. Absent: the caller's.
          systemRouting: ?bool
        )

        # A connection a client holds.
        type Flow (
          # The interface the connection uses.
          interface: string,
          # Its local address.
          localAddress: string,
          # Its peer, when known: viability then also checks the route to it.
          remoteAddress: ?string,
          # What it may use; a better path respects these.
          requirements: ?PathRequirements,
          # The socket is bound to its interface (SO_BINDTODEVICE): its packets leave by it whatever
          # the routes prefer, so viability asks for the route out of it. Absent: false.
          bound: ?bool,
          # The interface's index, when the client knows it: the flow is that interface whatever it is
          # called (a rename keeps it). Absent: the daemon reads it from the name when the flow is watched.
          interfaceIndex: ?int
        )

        # What a flow's client needs to know.
        type FlowStatus (
          # The connection can still send and receive over its interface: the link runs, it holds the
          # local address, and the kernel sends its packets (to the peer, from the local address) out of
          # that interface (`ip route get PEER from LOCAL`); without a peer, a default route leads out of it.
          isViable: bool,
          # Another path the requirements allow is preferred over the flow's own (or any usable path,
          # when the flow's is gone): open a new connection there and move once it is ready.
          betterPathAvailable: bool,
          # The interface of that better path.
          betterInterface: ?string,
          # Its usable addresses, of the family the requirements allow: what a new connection binds to.
          betterInterfaceAddresses: ?[]string
        )
        """
}

// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: its header and the path a client sees: interface types, link quality, the captive portal's API, the path.
    static let pathsDefinition = """
        # Network path monitoring: whether traffic can leave this machine, over which interfaces,
        # and at what cost. Modelled on Network.framework's NWPathMonitor.
        interface io.pathmond

        # The kind of network an interface reaches; paths prefer wired, then wifi, then cellular, then other.
        type InterfaceType (wired, wifi, cellular, loopback, other)

        # How capable an interface's link layer is (Apple's NWPath.linkQuality): for tuning initial values,
        # never for gating connection attempts. docs/attributes.md gives the thresholds and their reasons.
        type LinkQuality (
          # A client reads a grade it does not know as unknown.
          grade: (unknown, minimal, moderate, good),
          # Where the figures came from: ethernet (negotiated speed and duplex, sysfs), nl80211 (the Wi-Fi
          # station's figures), modemManager (access technology and signal quality).
          source: (ethernet, nl80211, modemManager),
          # Ethernet: the negotiated speed in Mbit/s, and whether full duplex.
          speedMbps: ?int,
          fullDuplex: ?bool,
          # Wi-Fi: the average signal in dBm, the driver's expected throughput and the last transmit rate
          # in kbit/s.
          signalDBm: ?int,
          expectedThroughputKbps: ?int,
          transmitBitrateKbps: ?int,
          # Cellular: ModemManager's MMModemAccessTechnology flags and signal quality in percent.
          accessTechnologies: ?int,
          signalQualityPercent: ?int
        )

        # What a captive portal's API (RFC 8908) answered when pathmond asked it: only with the
        # configuration's [captive-portal] check-api, over HTTPS. Counts are as of that answer.
        type CaptivePortalAPI (
          # The network holds traffic until the user visits the portal.
          captive: bool,
          # How long the session lasts, in seconds; pathmond asks again when it runs out.
          secondsRemaining: ?int,
          # How many bytes the session still allows.
          bytesRemaining: ?int,
          # The page where the user signs in (https only).
          userPortalURL: ?string,
          # A page about the venue.
          venueInfoURL: ?string
        )

        # One usable interface of a path.
        type PathInterface (
          # The kernel's interface index.
          index: int,
          # The interface name, e.g. "eth0".
          name: string,
          type: InterfaceType,
          # Traffic over it is metered or otherwise costly (cellular, phone tethering, configured).
          isExpensive: bool,
          # Its network is in Low Data Mode.
          isConstrained: bool,
          # A VPN or tunnel (WireGuard, tun/tap, PPP, GRE/IPIP/SIT, XFRM): its traffic rides on another
          # interface, whose expensive and constrained it inherits. Absent from older servers.
          isTunnel: ?bool,
          # Ultra-constrained (a satellite link; see PathRequirements.allowUltraConstrained): also
          # constrained. Absent from older servers, which have no such interfaces.
          isUltraConstrained: ?bool,
          # A cellular interface whose modem is registered roaming (ModemManager), or a tunnel over one.
          # Absent from older servers.
          isRoaming: ?bool,
          # Whether its network holds traffic at a captive portal: captive (a connectivity check,
          # NetworkManager's or pathmond's own, found one), open (the check passed, or the network said
          # it has no portal), limited (pathmond's check got no answer out of it), unknown. Absent
          # from older servers; a client reads a value it does not know as unknown.
          captivePortal: ?(unknown, captive, open, limited),
          # Its link's quality; absent when nothing was measured, and from older servers.
          linkQuality: ?LinkQuality,
          # Its network's data limit and usage this cycle (pathctl set-limit); absent without one.
          dataLimit: ?DataLimit
        )

        # The system's network path.
        type Path (
          # satisfied: at least one interface can carry traffic to the internet.
          status: (satisfied, unsatisfied),
          # Why the path is unsatisfied. With no usable interface at all, named after the furthest any
          # interface got: no interface but loopback exists; all are down; up without carrier; running
          # without a usable address; addressed without a default route. Otherwise, the first of the
          # client's parameters that ruled out every usable interface: its kind or name; the IP version;
          # expensive prohibited; constrained prohibited; roaming prohibited (given only to a client that
          # set prohibitRoaming). Absent when satisfied.
          unsatisfiedReason: ?(noInterfaces, interfacesDown, noCarrier, noAddress, noDefaultRoute,
            onlyProhibitedInterfaces, familyUnavailable, onlyExpensiveInterfaces, onlyConstrainedInterfaces,
            onlyRoamingInterfaces),
          # The usable interfaces, most preferred first.
          availableInterfaces: []PathInterface,
          # The path uses an expensive interface: the one some IP version's traffic leaves by (the
          # preferred interface, or another family's: IPv4 over cellular while IPv6 goes over wired makes
          # the path expensive). An app that must not pay binds to a cheap interface of the list.
          isExpensive: bool,
          # The same for Low Data Mode: some IP version's traffic leaves by a constrained network.
          isConstrained: bool,
          # IPv4 traffic can leave: a usable IPv4 address and an IPv4 default route on one interface.
          supportsIPv4: bool,
          # The same for IPv6.
          supportsIPv6: bool,
          # A DNS server is configured for the path (resolv.conf, or systemd-resolved on one of its links).
          supportsDNS: bool,
          # The next-hop routers the path uses, IPv4 first.
          gateways: []string,
          # The same for ultra-constrained networks (a path that is also constrained); only a client that
          # set allowUltraConstrained is given one. Absent from older servers.
          isUltraConstrained: ?bool,
          # Some IP version's traffic leaves by a roaming interface. Absent from older servers.
          isRoaming: ?bool,
          # captive when some IP version's traffic leaves by an interface held at a captive portal;
          # otherwise the preferred interface's state (see PathInterface.captivePortal). A captive path is
          # satisfied (the portal answers), but not unmetered for the system policy. Absent from older
          # servers.
          captivePortal: ?(unknown, captive, open, limited),
          # The captive portal's API URI (RFC 8910: DHCP option 114, DHCPv6 option 103, the router
          # advertisement's option 37) that interface's network announced, as the DHCP client or
          # systemd-networkd recorded it. An announced URI alone leaves captivePortal unknown: a portal
          # already accepted still announces it. Absent when none was.
          captivePortalURI: ?string,
          # What that portal's API answered (RFC 8908); absent unless pathmond was configured to ask
          # it and it answered, and from older servers.
          captivePortalAPI: ?CaptivePortalAPI,
          # The preferred interface's link quality; absent when nothing was measured, and from older
          # servers.
          linkQuality: ?LinkQuality,
          # Its network's data limit and usage this cycle (pathctl set-limit); absent without one.
          dataLimit: ?DataLimit
        )
        """
}

// SPDX-License-Identifier: Apache-2.0
/// The Varlink interface definitions pathmond serves through org.varlink.service.GetInterfaceDescription.
/// docs/io.pathmond.varlink holds the same text; a test keeps the two identical.
public enum VarlinkInterfaces {
    /// The name of pathmond's own interface.
    public static let pathmond = "io.pathmond"
    /// The name of the interface every Varlink service implements.
    public static let service = "org.varlink.service"

    /// The description of io.pathmond, in Varlink's interface definition language.
    public static let pathmondDescription = """
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
          # Whether its network holds traffic at a captive portal: captive (NetworkManager's connectivity
          # check found one), open (the check passed, or the network said it has no portal), unknown. Absent
          # from older servers; a client reads a value it does not know as unknown.
          captivePortal: ?(unknown, captive, open),
          # Its link's quality; absent when nothing was measured, and from older servers.
          linkQuality: ?LinkQuality
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
          captivePortal: ?(unknown, captive, open),
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
          linkQuality: ?LinkQuality
        )

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
          captivePortal: ?(unknown, captive, open),
          captivePortalURI: ?string,
          # Its link's quality (a tunnel: its carrier's). Absent when nothing was measured.
          linkQuality: ?LinkQuality
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
          bound: ?bool
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

        # The path now, for the given requirements (the system path without them).
        method GetPath(requirements: ?PathRequirements) -> (path: Path)

        # The path at once, then every change; call with "more". An unchanged path is not sent again.
        # Without "more", a single reply with the current path.
        method WatchPath(requirements: ?PathRequirements) -> (path: Path)

        # A flow's status at once, then every change; call with "more".
        method WatchFlow(flow: Flow) -> (status: FlowStatus)

        # Every interface the kernel has, loopback included, by index.
        method ListInterfaces() -> (interfaces: []Interface)

        # Marks the network on an interface, or the one a key names, as constrained (Low Data Mode), or
        # clears the mark. Give exactly one of interface and key. Root, or the configured admin group.
        method SetConstrained(interface: ?string, key: ?string, constrained: bool) -> (network: Network)

        # Marks the network as expensive (true) or not expensive (false) whatever detection says, or
        # leaves it to detection again (expensive absent). Same targets and rights as SetConstrained.
        method SetExpensive(interface: ?string, key: ?string, expensive: ?bool) -> (network: Network)

        # Marks the network as ultra-constrained (a satellite link: constrained, and left out of the path
        # of clients that did not set allowUltraConstrained), or clears the mark. Same targets and rights
        # as SetConstrained. Servers older than the method answer MethodNotFound.
        method SetUltraConstrained(interface: ?string, key: ?string, ultraConstrained: bool) -> (network: Network)

        # Names the network on an interface, or the one a key names ("Office"), or removes its name (name
        # absent). The name is shown instead of the key. At most 64 bytes of UTF-8, no control,
        # bidirectional or invisible characters.
        # Same targets and rights as SetConstrained.
        method SetNetworkName(interface: ?string, key: ?string, name: ?string) -> (network: Network)

        # Every network the user set something for, and every network attached now, by key.
        method ListNetworks() -> (networks: []Network)

        # Forgets what the user set for a network.
        method ForgetNetwork(key: string) -> ()

        # The daemon's own condition.
        method GetStatus() -> (status: DaemonStatus)

        # One path the history keeps: enough to tell one path from the next.
        type PathSummary (
          status: (satisfied, unsatisfied),
          unsatisfiedReason: ?string,
          # The available interfaces' names, most preferred first.
          interfaces: []string,
          isExpensive: bool,
          isConstrained: bool,
          supportsIPv4: bool,
          supportsIPv6: bool
        )

        # Why the system path changed.
        type ChangeCause (
          # kernel: netlink notifications; resync: the kernel's tables re-read (at start, or after lost
          # notifications); policy: SetExpensive, SetConstrained or ForgetNetwork; detection: a metered DHCP
          # lease, NetworkManager's Metered, a SIM or Wi-Fi network; resolver: resolv.conf or systemd-resolved;
          # configuration: the configuration file was reloaded.
          kind: (kernel, resync, policy, detection, resolver, configuration, unspecified),
          # For kernel: the tables the notifications touched (link, address, route, rule, neighbour).
          kernelTables: ?[]string,
          # The interfaces concerned.
          interfaces: []string,
          # For detection: dhcpMetered, networkManagerMetered, cellular (also roaming, with the detail
          # roaming or home network), wifi, identityForgotten, captivePortal, linkQuality; newer servers
          # may add others.
          detection: ?string,
          # For policy: the network key, and the uid of the client that changed it.
          network: ?string,
          uid: ?int,
          # More words (a policy setting).
          detail: ?string,
          # The cause in words.
          description: string
        )

        # One change of the system path.
        type HistoryEntry (
          # Grows by one per entry, across restarts.
          sequence: int,
          # Wall-clock time, microseconds since the Unix epoch.
          realtimeUsec: int,
          # CLOCK_MONOTONIC, microseconds; compare only within one bootID.
          monotonicUsec: int,
          bootID: string,
          before: PathSummary,
          after: PathSummary,
          cause: ChangeCause
        )

        # The last path changes (the configuration's [history] entries, 1000 by default), oldest first,
        # kept across restarts. since: only entries at or after this wall time (microseconds since the epoch);
        # interface: only entries that concern it; limit: only the newest this many. With "more", the first
        # reply holds the stored entries and each later reply one new entry, as it happens (journalctl -f).
        # truncated: true when older entries it selects were left out, so that the reply fits in one
        # message (16 MiB): it holds the newest that fit. Absent otherwise.
        method GetHistory(since: ?int, interface: ?string, limit: ?int) -> (entries: []HistoryEntry, truncated: ?bool)

        # The caller may not change policy: only root and the configured admin group may.
        error PermissionDenied (reason: string)

        # No interface has that name.
        error NoSuchInterface (interface: string)

        # The interface's network is not known (yet): no SSID, SIM or resolved gateway.
        error NetworkNotIdentified (interface: string)

        # The key is not a network key (at most 128 bytes; a Wi-Fi SSID at most 32 bytes).
        error InvalidNetworkKey (key: string)

        # No setting is remembered for that network.
        error NoSuchNetwork (key: string)

        # The policy could not be written to disk; nothing changed.
        error PolicyNotSaved (reason: string)

        # A limit that keeps the daemon fair to every local user was reached (reason says which); try again later.
        # The connection is closed after this error when the limit is on connections.
        error LimitReached (reason: string)

        # The message could not be read: not JSON, not a Varlink call, or larger than the limit; or a call
        # came while another streamed on the connection (a streaming call owns its connection).
        # The connection is closed after this error.
        error ProtocolError (reason: string)
        """

    /// The description of org.varlink.service, as varlink.org defines it.
    public static let serviceDescription = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()
        """

    /// The descriptions by interface name.
    public static let descriptions: [String: String] = [
        pathmond: pathmondDescription,
        service: serviceDescription,
    ]
}

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

        # One usable interface of a path.
        type PathInterface (
          # The kernel's interface index.
          index: int,
          # The interface name, e.g. "eth0".
          name: string,
          type: InterfaceType,
          # Traffic over it is metered or otherwise costly (cellular, phone tethering, configured).
          isExpensive: bool
        )

        # The system's network path.
        type Path (
          # satisfied: at least one interface can carry traffic to the internet.
          status: (satisfied, unsatisfied),
          # Why the path is unsatisfied, named after the furthest any interface got: no interface but
          # loopback exists; all are down; up without carrier; running without a usable address;
          # addressed without a default route. Absent when satisfied.
          unsatisfiedReason: ?(noInterfaces, interfacesDown, noCarrier, noAddress, noDefaultRoute),
          # The usable interfaces, most preferred first.
          availableInterfaces: []PathInterface,
          # The preferred interface is expensive.
          isExpensive: bool,
          # The preferred interface's network is in Low Data Mode.
          isConstrained: bool,
          # IPv4 traffic can leave: a usable IPv4 address and an IPv4 default route on one interface.
          supportsIPv4: bool,
          # The same for IPv6.
          supportsIPv6: bool,
          # The next-hop routers the path uses, IPv4 first.
          gateways: []string
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
          supportsIPv6: bool
        )

        # The current path.
        method GetPath() -> (path: Path)

        # The current path at once, then every change; call with "more". An unchanged path is not sent
        # again. Without "more", a single reply with the current path.
        method WatchPath() -> (path: Path)

        # Every interface the kernel has, loopback included, by index.
        method ListInterfaces() -> (interfaces: []Interface)

        # The message could not be read: not JSON, not a Varlink call, or larger than the limit.
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

// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: the calls: paths, flows, interfaces, the user's policy, the daemon's status.
    static let methodsDefinition = """
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

        # Sets a data limit on the network on an interface, or the one a key names, or clears it (limitBytes
        # absent). Bytes sent and received together per cycle count against limitBytes; past warningPercent
        # (80 unless given) of it the network is constrained, past the limit also expensive, until the
        # cycle ends. cycle: monthly:DAY (the default, monthly:1), weekly:DAY or daily. Same targets and
        # rights as SetConstrained. Servers older than the method answer MethodNotFound.
        method SetDataLimit(interface: ?string, key: ?string, limitBytes: ?int, warningPercent: ?int, cycle: ?string) -> (network: Network)

        # Every network the user set something for, and every network attached now, by key.
        method ListNetworks() -> (networks: []Network)

        # Forgets what the user set for a network.
        method ForgetNetwork(key: string) -> ()

        # The daemon's own condition.
        method GetStatus() -> (status: DaemonStatus)
        """
}

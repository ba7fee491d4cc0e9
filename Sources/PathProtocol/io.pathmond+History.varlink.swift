// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: the history of path changes and the call that reads it.
    static let historyDefinition = """
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
          # roaming or home network), wifi, identityForgotten, captivePortal, linkQuality, dataLimit; newer
          # servers may add others.
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
        """
}

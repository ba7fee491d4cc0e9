// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: how much each network has used.
    static let usageDefinition = """
        # Bytes in some whole days of the local calendar.
        type UsagePeriod (
          # The first day, YYYY-MM-DD.
          first: string,
          # The last day, YYYY-MM-DD (the same as first for one day).
          last: string,
          # Bytes sent and received over the network's interfaces, from their kernel counters.
          sent: int,
          received: int
        )

        # A network's usage this billing cycle against the data limit the user set (pathctl set-limit).
        type DataLimit (
          # Bytes sent and received together per cycle.
          limitBytes: int,
          # Percent of the limit past which the network is constrained (Low Data Mode by itself).
          warningPercent: int,
          # How the cycle runs: monthly:DAY (1-31), weekly:DAY (1 Monday - 7 Sunday) or daily.
          cycle: string,
          # Sent and received together in this cycle. On a path or an interface it is refreshed when it
          # enters another hundredth of the limit (and at each level); GetUsage gives it as read now.
          usedBytes: int,
          # The cycle's first day and the day it resets (the day after its last), YYYY-MM-DD, local time.
          cycleStart: string,
          cycleEnd: string,
          # normal; warning: past the warning, constrained; exceeded: past the limit, also expensive.
          level: (normal, warning, exceeded)
        )

        # One network's usage: counted while it is attached, kept across restarts.
        type NetworkUsage (
          # The network's key, as in Network.
          key: string,
          # A name for people, as in Network.
          displayName: string,
          # The interfaces attached to it and counted now; empty when it is not attached.
          interfaces: []string,
          today: UsagePeriod,
          # The billing cycle that holds today: the calendar month.
          cycle: UsagePeriod,
          # The cycles before it, newest first (three).
          pastCycles: []UsagePeriod,
          # Its data limit and the usage of the limit's cycle; absent without a limit.
          dataLimit: ?DataLimit
        )

        # Each network's usage, by key. The counted interfaces are read at the call, so the figures are
        # up to date; a crash loses at most the last interval ([usage] interval, 60 s by default).
        method GetUsage() -> (networks: []NetworkUsage)
        """
}

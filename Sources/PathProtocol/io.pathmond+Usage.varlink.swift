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
          pastCycles: []UsagePeriod
        )

        # Each network's usage, by key. The counted interfaces are read at the call, so the figures are
        # up to date; a crash loses at most the last interval ([usage] interval, 60 s by default).
        method GetUsage() -> (networks: []NetworkUsage)
        """
}

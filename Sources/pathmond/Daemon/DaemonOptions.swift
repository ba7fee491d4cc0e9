// SPDX-License-Identifier: Apache-2.0

/// What the daemon is told on its command line, apart from the configuration file: where it serves, where it keeps
/// its state, its limits and where it reads what the kernel's tables do not say. The command line sets it
/// (`DaemonCommandLine.options`, where each option that sets a field here is declared); a test makes one pointing
/// at its own directories. The initial values are the defaults, which `--help` shows.
struct DaemonOptions: Equatable, Sendable {
    var socket = "/run/pathmond/io.pathmond"
    var stateDirectory = "/var/lib/pathmond"
    var maxClients = 16384
    var maxClientsPerUser = 1024
    var maxWatchesPerUser = 512
    var receiveBuffer = 32 * 1024 * 1024
    var sysfsRoot = "/sys/class/net"
    var networkdLeases = "/run/systemd/netif/leases"
    var networkdLinks = "/run/systemd/netif/links"
    var resolvConf = "/etc/resolv.conf"
    var resolvedDirectory = "/run/systemd/resolve"
    /// Where pathmond-probe listens (its socket unit, or a test's `pathmond-probe --listen`): the connectivity check
    /// and the RFC 8908 check both ask it.
    var connectivityProbe = "/run/pathmond-probe.socket"
    /// The system bus's D-Bus address; nil: $DBUS_SYSTEM_BUS_ADDRESS, else the standard socket.
    var systemBus: String?
    var usesSystemBus = true
    /// The listening socket systemd passed (socket activation), read once at start (`inheritedListeningSocket`
    /// unsets the variables that name it); nil: the server binds `socket` itself.
    var inheritedSocket: Int32?
    /// What GetInfo and the metrics say this daemon is.
    var version = PathmondCommand.version
}

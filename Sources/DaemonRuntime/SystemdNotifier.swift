// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd how the service is doing, through sd_notify(3). Outside systemd (no $NOTIFY_SOCKET) it does
/// nothing; a failure is returned, not thrown: a daemon must not stop because its supervisor's socket went away.
package struct SystemdNotifier: Sendable {
    package init() {}

    /// Sends a state string such as "READY=1" or "STATUS=...".
    @discardableResult
    package func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// Tells systemd a reload started: "RELOADING=1" with the CLOCK_MONOTONIC time systemd ≥ 253 requires
    /// (older versions ignore the field). READY=1 ends it.
    @discardableResult
    package func notifyReloading(monotonicMicroseconds: UInt64) -> Bool {
        notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)\nSTATUS=Reloading the configuration")
    }
}

/// The listening socket systemd passed (socket activation, sd_listen_fds(3)), if it passed exactly one Unix stream
/// socket bound to `path`; nil when started by hand. The environment variables are unset so no child inherits them.
package func inheritedListeningSocket(path: String) -> Int32? {
    let count = sd_listen_fds(1)
    guard count == 1 else { return nil }
    let descriptor = SD_LISTEN_FDS_START
    guard sd_is_socket_unix(descriptor, Int32(SOCK_STREAM.rawValue), 1, path, 0) > 0 else { return nil }
    return descriptor
}

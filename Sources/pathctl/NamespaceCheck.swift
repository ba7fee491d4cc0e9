// SPDX-License-Identifier: Apache-2.0
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// networkctl's check that the daemon it asks watches the caller's network: pathmond in another network namespace
/// (a container, `ip netns exec`) reports that namespace's interfaces, not the ones this shell uses.
enum NamespaceCheck {
    /// The inode of a process's network namespace (/proc/self/ns/net), or nil if it cannot be read.
    static var ownNamespace: UInt64? {
        var information = stat()
        guard stat("/proc/self/ns/net", &information) == 0 else { return nil }
        return UInt64(information.st_ino)
    }

    /// Prints a warning when pathmond says it serves another namespace; says nothing when either side cannot tell
    /// (an older pathmond does not report its namespace).
    static func warnIfForeign(_ connection: PathmondConnection) {
        guard let own = ownNamespace, let theirs = try? connection.status().networkNamespace,
            UInt64(exactly: theirs) != own
        else { return }
        printError(
            "pathctl: warning: pathmond is running in a different network namespace (net:[\(theirs)]) than"
                + " pathctl (net:[\(own)]): what it reports is that namespace's network, not this one's.")
    }
}

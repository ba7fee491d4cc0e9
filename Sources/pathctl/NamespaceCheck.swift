// SPDX-License-Identifier: Apache-2.0
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// networkctl's check that the daemon it asks watches the caller's network: pathmond in another network namespace
/// (a container, `ip netns exec`) reports that namespace's interfaces, not the ones this shell uses.
///
/// Without a call where it can: the kernel names the process that listens on the socket (SO_PEERCRED), and
/// /proc/PID/ns/net names its namespace. That process is pathmond, or the service manager that listens for it
/// (pathmond.socket): systemd binds a socket unit's sockets in its own namespace unless the unit names another, and
/// then binds them from a helper process that is gone by now, and pathmond.service runs in the namespace of its
/// socket. Only where that cannot be read (another user's daemon, a /proc that is not this process's, any other
/// listener) is pathmond asked (GetStatus), so that `pathctl check` as root makes one call, GetPath.
enum NamespaceCheck {
    /// The inode of a process's network namespace (/proc/self/ns/net), or nil if it cannot be read.
    static var ownNamespace: UInt64? { namespace(at: "/proc/self/ns/net") }

    /// Prints a warning when pathmond serves another namespace; says nothing when either side cannot tell (an
    /// older pathmond does not report its namespace).
    static func warnIfForeign(_ connection: PathmondConnection) {
        guard let own = ownNamespace else { return }
        let theirs: UInt64
        if let local = connection.peerProcessID.flatMap(peerNamespace) {
            theirs = local
        } else {
            guard let reported = try? connection.status().networkNamespace else { return }
            // A value no inode has (negative) is not this namespace's either.
            theirs = UInt64(exactly: reported) ?? 0
        }
        guard theirs != own else { return }
        printError(
            "pathctl: warning: pathmond is running in a different network namespace (net:[\(theirs)]) than"
                + " pathctl (net:[\(own)]): what it reports is that namespace's network, not this one's.")
    }

    /// The listeners whose namespace is pathmond's: pathmond itself, and systemd listening for it.
    static let listeners: Set<String> = ["pathmond\n", "systemd\n"]

    /// The namespace of pathmond as seen through the process `processID` that listens on its socket, read from
    /// /proc; nil unless /proc is this process's (its /proc/self is getpid(): PID numbers mean the same there), the
    /// listener is pathmond or systemd, and its namespace can be read (ptrace rules: root, or the listener's user).
    static func peerNamespace(_ processID: Int32) -> UInt64? {
        guard read("/proc/self", link: true) == String(getpid()),
            let command = read("/proc/\(processID)/comm"), listeners.contains(command)
        else { return nil }
        return namespace(at: "/proc/\(processID)/ns/net")
    }

    private static func namespace(at path: String) -> UInt64? {
        var information = stat()
        guard stat(path, &information) == 0 else { return nil }
        return UInt64(information.st_ino)
    }

    /// A small file's text, or a symbolic link's target; nil if it cannot be read.
    private static func read(_ path: String, link: Bool = false) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count: Int
        if link {
            count = buffer.withUnsafeMutableBytes {
                readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
            }
        } else {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}

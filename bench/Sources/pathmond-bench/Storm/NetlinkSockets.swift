// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's view of the listeners' NETLINK_ROUTE sockets (/proc/PID/net/netlink, in their namespace): how much
/// each has queued unread (Rmem) and how many notifications it lost (Drops).
struct NetlinkSockets {
    struct Socket {
        var queuedBytes: Int
        var drops: Int
    }

    /// The inodes of the NETLINK_ROUTE sockets with multicast groups each listener holds.
    private let inodesByProcess: [pid_t: Set<String>]
    private let table: String

    /// Finds each process's subscribed route sockets; `namespaceProcess` is any process in the namespace.
    init(processes: [pid_t], namespaceProcess: pid_t) {
        table = "/proc/\(namespaceProcess)/net/netlink"
        var owned: [pid_t: Set<String>] = [:]
        for pid in processes { owned[pid] = Self.socketInodes(pid) }
        let rows = Self.rows(table)
        inodesByProcess = owned.mapValues { inodes in
            Set(
                inodes.filter { inode in
                    rows[inode].map { $0.protocolNumber == "0" && $0.groups != "00000000" } ?? false
                })
        }
    }

    /// Each listener's sockets now, summed per process.
    func read() -> [pid_t: Socket] {
        let rows = Self.rows(table)
        return inodesByProcess.mapValues { inodes in
            inodes.reduce(Socket(queuedBytes: 0, drops: 0)) { sum, inode in
                guard let row = rows[inode] else { return sum }
                return Socket(queuedBytes: sum.queuedBytes + row.queued, drops: sum.drops + row.drops)
            }
        }
    }

    var isEmpty: Bool { inodesByProcess.values.allSatisfy(\.isEmpty) }

    private struct Row {
        var protocolNumber: Substring
        var groups: Substring
        var queued: Int
        var drops: Int
    }

    /// sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode, by inode.
    private static func rows(_ path: String) -> [String: Row] {
        var rows: [String: Row] = [:]
        for line in readFile(path).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 10 else { continue }
            rows[String(fields[9])] = Row(
                protocolNumber: fields[1], groups: fields[3], queued: Int(fields[4]) ?? 0, drops: Int(fields[8]) ?? 0)
        }
        return rows
    }

    private static func socketInodes(_ pid: pid_t) -> Set<String> {
        guard let directory = opendir("/proc/\(pid)/fd") else { return [] }
        defer { closedir(directory) }
        var inodes: Set<String> = []
        var target = [CChar](repeating: 0, count: 256)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            let count = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard count > 0 else { continue }
            let link = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("socket:[") { inodes.insert(String(link.dropFirst(8).dropLast())) }
        }
        return inodes
    }
}

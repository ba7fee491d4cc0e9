// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What one start of pathmond leaves in its history, from a run in namespaces of its own (network, mount, PID)
/// with a wired uplink, stopped with SIGTERM after four seconds.
@Suite struct HistoryAtStartTests {
    /// The unit's `ProcSubset=pid` hides /proc/sys and with it the kernel's boot ID: history entries were written
    /// with an empty `bootID` under it. Here /proc is mounted as the unit mounts it, and the boot ID comes from
    /// the environment, as the unit passes systemd's.
    @Test func historyCarriesTheBootIDWhereProcSysIsHidden() throws {
        let entries = try historyOfOneStart(
            setUp: """
                mount -t proc -o subset=pid proc /proc || exit 90
                test ! -e /proc/sys/kernel/random/boot_id || exit 91
                export PATHMOND_BOOT_ID=fedcba9876543210fedcba9876543210
                """)
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(entry.contains("\"bootID\":\"fedcba98-7654-3210-fedc-ba9876543210\""), "\(entry)")
        }
    }

    /// A start is one path change, resolvers included: the resolver's first read once came after the kernel's
    /// snapshot and was recorded as a second change ("resolver configuration changed").
    @Test func aStartIsOnePathChange() throws {
        let entries = try historyOfOneStart(setUp: "", resolvConf: "nameserver 192.0.2.53\n")
        #expect(entries.count == 1, "\(entries.joined(separator: "\n"))")
    }

    /// The history file's entries after one run of pathmond; `setUp` runs first inside the namespaces.
    private func historyOfOneStart(setUp: String, resolvConf: String? = nil) throws -> [Substring] {
        let directory = "/tmp/pmhs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if let resolvConf { try Data(resolvConf.utf8).write(to: URL(filePath: directory + "/resolv.conf")) }
        let script = """
            \(setUp)
            ip link set lo up
            # A wired uplink, so that the path changes and the history has entries.
            ip link add eth0 type veth peer name eth0-peer && ip link set eth0-peer up && ip link set eth0 up
            ip address add 192.0.2.10/24 dev eth0 && ip route add default via 192.0.2.1 || exit 92
            timeout -s TERM 4 "$0" --socket \(directory)/socket --state-dir \(directory)/state --no-system-bus \\
                --resolv-conf \(directory)/resolv.conf --resolved-dir \(directory)/resolve
            test $? = 124
            """
        let result = try runCommand(
            ["unshare", "--net", "--mount", "--pid", "--fork", "sh", "-c", script, product("pathmond")], check: false)
        #expect(result.status == 0, "\(result.errorOutput)")
        let history = try String(contentsOfFile: directory + "/state/history.jsonl", encoding: .utf8)
        return history.split(separator: "\n").filter { $0.contains("\"sequence\"") }
    }
}

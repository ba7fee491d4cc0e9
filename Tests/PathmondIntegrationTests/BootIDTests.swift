import Foundation
import Testing

/// The unit's `ProcSubset=pid` hides /proc/sys and with it the kernel's boot ID: history entries were written
/// with an empty `bootID` under it. Here pathmond runs in namespaces of its own (network, mount, PID) under a
/// procfs of processes only, as the unit mounts it, with the boot ID systemd hands it through the environment.
@Suite struct BootIDTests {
    @Test func historyCarriesTheBootIDWhereProcSysIsHidden() throws {
        let directory = "/tmp/pmbi-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            mount -t proc -o subset=pid proc /proc || exit 90
            test ! -e /proc/sys/kernel/random/boot_id || exit 91
            ip link set lo up
            # A wired uplink, so that the path changes and the history has entries.
            ip link add eth0 type veth peer name eth0-peer && ip link set eth0-peer up && ip link set eth0 up
            ip address add 192.0.2.10/24 dev eth0 && ip route add default via 192.0.2.1 || exit 92
            export PATHMOND_BOOT_ID=fedcba9876543210fedcba9876543210
            timeout -s TERM 4 "$0" --socket \(directory)/socket --state-dir \(directory)/state --no-system-bus
            test $? = 124
            """
        let result = try runCommand(
            ["unshare", "--net", "--mount", "--pid", "--fork", "sh", "-c", script, product("pathmond")], check: false)
        #expect(result.status == 0, "\(result.errorOutput)")
        let history = try String(contentsOfFile: directory + "/state/history.jsonl", encoding: .utf8)
        let entries = history.split(separator: "\n").filter { $0.contains("\"sequence\"") }
        #expect(!entries.isEmpty, "\(history)")
        for entry in entries {
            #expect(entry.contains("\"bootID\":\"fedcba98-7654-3210-fedc-ba9876543210\""), "\(entry)")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Holds tun devices open from a small helper process inside the namespace, so they have carrier (a tun device is
/// running only while a process holds it, TUNSETIFF). Closing its standard input ends the helper and the devices
/// lose carrier; `ip link del` removes them.
final class TunnelHolder {
    private let process = Process()
    private let input = Pipe()

    /// Python's fcntl is on every Debian; the ioctl is TUNSETIFF with IFF_TUN | IFF_NO_PI. Draining, it reads
    /// and drops what the kernel sends into the devices: a tun device counts a packet as transmitted only once it
    /// is read, so real traffic's counters move (`RealSockets`).
    private static let program = """
        import fcntl, os, select, struct, sys
        draining = sys.argv[1] == "drain"
        held = []
        for name in sys.argv[2:]:
            fd = os.open("/dev/net/tun", os.O_RDWR)
            fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", name.encode(), 0x0001 | 0x1000))
            held.append(fd)
        print("ready", flush=True)
        while draining:
            readable, _, _ = select.select(held + [0], [], [])
            if 0 in readable and not os.read(0, 4096):
                break
            for fd in readable:
                if fd != 0:
                    os.read(fd, 65536)
        if not draining:
            sys.stdin.read()
        """

    init(_ namespace: NetworkNamespace, names: [String], draining: Bool = false) throws {
        let output = Pipe()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments =
            namespace.exec + ["python3", "-c", Self.program, draining ? "drain" : "hold"] + names
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).contains("ready") else {
            throw CommandError(
                command: process.arguments ?? [], result: CommandResult(status: -1, output: "", errorOutput: ""))
        }
    }

    /// Lets the devices go and waits for the helper to end.
    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

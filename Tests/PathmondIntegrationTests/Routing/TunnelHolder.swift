// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Holds tun devices open from a small helper process inside the namespace, so they have carrier (a tun device is
/// running only while a process holds it, TUNSETIFF). Closing its standard input ends the helper and the devices
/// lose carrier; `ip link del` removes them.
final class TunnelHolder {
    private let process = Process()
    private let input = Pipe()

    /// Python's fcntl is on every Debian; the ioctl is TUNSETIFF with IFF_TUN | IFF_NO_PI.
    private static let program = """
        import fcntl, os, struct, sys
        held = []
        for name in sys.argv[1:]:
            fd = os.open("/dev/net/tun", os.O_RDWR)
            fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", name.encode(), 0x0001 | 0x1000))
            held.append(fd)
        print("ready", flush=True)
        sys.stdin.read()
        """

    init(_ namespace: NetworkNamespace, names: [String]) throws {
        let output = Pipe()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = namespace.exec + ["python3", "-c", Self.program] + names
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

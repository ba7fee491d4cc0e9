// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// A private dbus-daemon standing in for the machine's system bus: pathmond is pointed at it with
/// `--system-bus`, NetworkManager and nmcli with DBUS_SYSTEM_BUS_ADDRESS. Its policy is the session
/// configuration's (anyone owns any name), or with `debianPolicy` Debian's system bus's: system.conf and the
/// system.d files it includes (NetworkManager's lets root own its name; any user may send signals), the daemon
/// running as messagebus, its socket open to every user.
final class PrivateSystemBus: @unchecked Sendable {
    // @unchecked: set in init, read only after; Process is thread-safe.
    let directory: URL
    var address: String { "unix:path=" + directory.appending(path: "bus").path }
    private let process: Process

    init(debianPolicy: Bool = false) throws {
        directory = URL(filePath: "/tmp/pmbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var configuration = ["--session"]
        if debianPolicy {
            // --address, --nofork and --nopidfile override system.conf's <listen>, <fork/> and <pidfile>. The
            // activation helper is replaced so that no call starts one of the host's services, and activation gives
            // up at once: the daemon inherits this process's blocked signals, may miss the helper's exit, and
            // NetworkManager's start would wait 25 s for hostnamed.
            let path = directory.appending(path: "system.conf")
            try Data(
                """
                <busconfig><include>/usr/share/dbus-1/system.conf</include>\
                <servicehelper>/bin/false</servicehelper>\
                <limit name="service_start_timeout">100</limit></busconfig>

                """.utf8
            ).write(to: path)
            configuration = ["--config-file=" + path.path]
        }
        process = Process()
        process.executableURL = URL(filePath: "/usr/bin/dbus-daemon")
        process.arguments = configuration + ["--nofork", "--nopidfile", "--address=" + address]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let socket = directory.appending(path: "bus").path
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        guard FileManager.default.fileExists(atPath: socket) else { throw CommandError.missing("dbus-daemon socket") }
    }

    func stop() {
        // SIGKILL: the test process's blocked signal mask is inherited, and dbus-daemon leaves SIGTERM blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Debian's NetworkManager, really running, in a test namespace and on a private bus. It manages only the
/// interface named, with a static address and gateway from a keyfile profile, and touches nothing of the host:
/// DNS, hostname and polkit are off, and in a mount namespace of its own /run/NetworkManager and
/// /var/lib/NetworkManager are private tmpfs and /sys is read-only (so it does not wait for a udev that a test
/// namespace does not have, as in a container).
final class RealNetworkManager: @unchecked Sendable {
    // @unchecked: set in init, read only after; Process is thread-safe.
    static let executable = "/usr/sbin/NetworkManager"
    let bus: PrivateSystemBus
    let directory: URL
    let logPath: String
    private let process: Process

    /// `connectivityCheck`: the URI of NetworkManager's own connectivity check and the answer that means full
    /// connectivity (any other answer is a portal's); nil turns the check off.
    init(
        in namespace: NetworkNamespace, bus: PrivateSystemBus, interface: String, address: String, gateway: String,
        connectivityCheck: (uri: String, response: String)? = nil
    ) throws {
        self.bus = bus
        directory = bus.directory.appending(path: "nm")
        let connections = directory.appending(path: "connections")
        try FileManager.default.createDirectory(at: connections, withIntermediateDirectories: true)
        let configuration = """
            [main]
            plugins=keyfile
            auth-polkit=false
            dns=none
            rc-manager=unmanaged
            hostname-mode=none
            no-auto-default=*
            [keyfile]
            path=\(connections.path)
            unmanaged-devices=except:interface-name:\(interface)
            [connectivity]
            \(connectivityCheck.map { "enabled=true\nuri=\($0.uri)\nresponse=\($0.response)\ninterval=2" } ?? "enabled=false")
            """
        try Data(configuration.utf8).write(to: directory.appending(path: "NetworkManager.conf"))
        let profile = """
            [connection]
            id=\(interface)
            type=ethernet
            interface-name=\(interface)
            [ipv4]
            method=manual
            address1=\(address),\(gateway)
            [ipv6]
            method=disabled
            """
        let profileURL = connections.appending(path: "\(interface).nmconnection")
        try Data(profile.utf8).write(to: profileURL)
        // NetworkManager ignores a profile others can read.
        chmod(profileURL.path, 0o600)
        for empty in ["conf.d", "system-conf.d"] {
            try FileManager.default.createDirectory(
                at: directory.appending(path: empty), withIntermediateDirectories: true)
        }
        let dir = directory.path
        let script = """
            set -e
            mount -o remount,ro /sys
            mkdir -p /run/NetworkManager /var/lib/NetworkManager
            mount -t tmpfs tmpfs /run/NetworkManager
            mount -t tmpfs tmpfs /var/lib/NetworkManager
            exec \(Self.executable) --debug --log-level=INFO --config \(dir)/NetworkManager.conf \
              --config-dir \(dir)/conf.d --system-config-dir \(dir)/system-conf.d \
              --intern-config \(dir)/intern.conf --state-file \(dir)/state --pid-file \(dir)/pid
            """
        logPath = directory.appending(path: "NetworkManager.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments =
            namespace.exec + ["env", "DBUS_SYSTEM_BUS_ADDRESS=" + bus.address, "unshare", "-m", "sh", "-c", script]
        let log = try FileHandle(forWritingTo: URL(filePath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Runs nmcli against this NetworkManager.
    @discardableResult
    func nmcli(_ arguments: String...) throws -> CommandResult {
        try runCommand(["env", "DBUS_SYSTEM_BUS_ADDRESS=" + bus.address, "nmcli"] + arguments)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func stop() {
        // SIGTERM: NetworkManager leaves the interface configured as it found it.
        process.terminate()
        process.waitUntilExit()
    }
}

extension CommandError {
    static func missing(_ what: String) -> CommandError {
        CommandError(command: [what], result: CommandResult(status: -1, output: "", errorOutput: "missing"))
    }
}

extension Scenario {
    /// pathmond following `bus`, and eth0 (192.0.2.10/24 via 192.0.2.1, the gateway in the far namespace)
    /// configured by a real NetworkManager on the same bus.
    static func withNetworkManager(
        on bus: PrivateSystemBus, configuration: String,
        connectivityCheck: (uri: String, response: String)? = nil,
        beforeNetworkManager: (Scenario) throws -> Void = { _ in }
    ) throws -> (Scenario, RealNetworkManager) {
        let scenario = try Scenario.start(configuration: configuration, arguments: ["--system-bus", bus.address]) {
            try $0.addVeth("eth0", peer: "eth0-peer")
            try $0.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        do {
            try beforeNetworkManager(scenario)
            let networkManager = try RealNetworkManager(
                in: scenario.namespace, bus: bus, interface: "eth0", address: "192.0.2.10/24", gateway: "192.0.2.1",
                connectivityCheck: connectivityCheck)
            return (scenario, networkManager)
        } catch {
            _ = scenario.tearDown()
            throw error
        }
    }
}

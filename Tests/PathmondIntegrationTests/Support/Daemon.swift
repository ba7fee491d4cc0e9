// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathProtocol

/// A real pathmond process inside a test namespace, serving on a socket in a temporary directory. `start()`
/// returns once the daemon has said READY=1 over $NOTIFY_SOCKET, as it would to systemd.
final class Daemon: @unchecked Sendable {
    // @unchecked: `process` is set once in start() before the value is shared, and Process itself is thread-safe.
    let namespace: NetworkNamespace
    let directory: URL
    let socketPath: String
    let logPath: String
    /// The configuration file's text; a test may change it before a restart.
    var configuration: String?
    /// The daemon's --state-dir: it survives restarts, as /var/lib/pathmond does.
    let stateDirectory: String
    /// The resolv.conf this daemon reads (absent at first).
    var resolvConfPath: String { directory.appending(path: "resolv.conf").path }
    private let extraArguments: [String]
    /// A command the daemon is started through inside the namespace (setpriv, to drop a capability).
    private let launcher: [String]
    private var process: Process?

    init(
        in namespace: NetworkNamespace, configuration: String? = nil, arguments: [String] = [],
        launcher: [String] = []
    ) throws {
        self.namespace = namespace
        self.configuration = configuration
        self.extraArguments = arguments
        self.launcher = launcher
        // Short path: sun_path holds 108 bytes.
        directory = URL(filePath: "/tmp/pmit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appending(path: "io.pathmond").path
        logPath = directory.appending(path: "pathmond.log").path
        stateDirectory = directory.appending(path: "state").path
    }

    /// Starts pathmond and waits for READY=1.
    func start(timeout: Duration = .seconds(20)) throws {
        let notify = try NotifyListener(path: directory.appending(path: "notify").path)
        defer { notify.close() }
        var arguments =
            namespace.exec + launcher + [
                product("pathmond"), "--socket", socketPath, "--state-dir", stateDirectory, "--log-level", "debug",
                // The host's resolver must not leak into the tests: no resolv.conf until a test writes one.
                "--resolv-conf", resolvConfPath, "--resolved-dir", directory.appending(path: "resolve").path,
                // Nor a probe the host runs (pathmond-probe.socket): it would ask out of the host's interfaces. A
                // test of the connectivity check passes its own.
                "--connectivity-probe", directory.appending(path: "no-probe.socket").path,
            ]
        if let configuration {
            try rewriteConfiguration(configuration)
            arguments += ["--config", configurationPath]
        }
        arguments += extraArguments
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        // The host's system bus (and its NetworkManager's view of an "eth0") must not leak in either; a test that
        // wants a bus passes --system-bus.
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + directory.appending(path: "no-system-bus").path
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(filePath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard try notify.waitFor("READY=1", timeout: timeout) else {
            process.terminate()
            throw DaemonError.notReady(log: self.log)
        }
    }

    /// Sends SIGTERM and waits for the exit status (graceful shutdown must succeed).
    @discardableResult
    func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? -1 }
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The configuration file the daemon reads (when it was started with one).
    var configurationPath: String { directory.appending(path: "pathmond.conf").path }

    /// Replaces the configuration file's text; the daemon reads it on its next start or SIGHUP.
    func rewriteConfiguration(_ text: String) throws {
        configuration = text
        try Data(text.utf8).write(to: URL(filePath: configurationPath))
    }

    /// The running daemon's process ID.
    var processID: Int32? { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

    /// Sends a signal (SIGHUP to reload, say).
    func signal(_ number: Int32) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, number)
    }

    /// Kills the daemon without warning, as a crash would.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// SIGSTOP: the daemon reads nothing until `resume()`, as if the machine starved it.
    func pause() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// SIGCONT after `pause()`.
    func resume() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGCONT)
    }

    /// What the daemon logged so far.
    var log: String {
        (try? String(decoding: Data(contentsOf: URL(filePath: logPath)), as: UTF8.self)) ?? ""
    }

    /// Stops the daemon and removes its directory.
    func cleanUp() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum DaemonError: Error, CustomStringConvertible {
    case notReady(log: String)

    var description: String {
        switch self {
        case .notReady(let log): return "pathmond did not become ready; its log:\n\(log)"
        }
    }
}

/// The receiving end of sd_notify: a datagram socket the daemon finds through $NOTIFY_SOCKET.
final class NotifyListener {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard let address = UnixSocketAddress(path: path) else { throw POSIXError(.ENAMETOOLONG) }
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Reads notifications until one contains `line`, or the timeout passes.
    func waitFor(_ line: String, timeout: Duration) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = deadline - ContinuousClock.now
            let milliseconds = Int32(
                max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            if String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").contains(Substring(line)) {
                return true
            }
        }
        return false
    }

    func close() {
        Glibc.close(descriptor)
        unlink(path)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing

/// Whether the machine can run the bus tests: dbus-daemon and Debian's python3-dbus (./scripts/setup installs both).
let canRunBusTests =
    access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/lib/python3/dist-packages/dbus", F_OK) == 0

/// Whether the bus tests can also play another user: root, with setpriv, and Debian's system-bus policy.
let canForgeAsNobody =
    canRunBusTests && getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0
    && access("/usr/share/dbus-1/system.conf", R_OK) == 0

/// A private dbus-daemon on a socket in a fresh directory, killed at `stop()`.
final class PrivateBus {
    /// Who may do what on the bus.
    enum Policy {
        /// The session bus's: anyone owns any name. Enough to follow a service.
        case session
        /// Debian's system bus's (/usr/share/dbus-1/system.conf and the system.d files it includes, among them
        /// NetworkManager's, which lets root own its name), and ModemManager's as its own file grants (not installed
        /// here): any user may send signals; only root owns the two services' names. The daemon runs as
        /// messagebus, as on a real system.
        case system
    }

    let directory: String
    let socketPath: String
    var address: String { "unix:path=" + socketPath }
    private let daemon: pid_t

    /// A bus in a fresh directory, or in `directory` (its socket is then `directory/bus`).
    init(directory: String? = nil, policy: Policy = .session) throws {
        self.directory = directory ?? makeTemporaryDirectory()
        socketPath = self.directory + "/bus"
        var configuration = ["--session"]
        if policy == .system {
            // Reachable by other users (mkdtemp made it 0700); --address overrides the system socket <listen>, and
            // --nofork and --nopidfile its <fork/> and <pidfile>.
            chmod(self.directory, 0o755)
            let path = self.directory + "/system.conf"
            try #require(writeText(Self.systemConfiguration, to: path))
            configuration = ["--config-file=" + path]
        }
        daemon = try #require(
            spawnProcess(
                ["/usr/bin/dbus-daemon"] + configuration + [
                    "--nofork", "--nopidfile", "--address=unix:path=" + socketPath,
                ]))
        // The daemon creates its socket soon after start; poll briefly rather than sleep a fixed time.
        var tries = 0
        while access(socketPath, F_OK) != 0 && tries < 500 {
            usleep(10_000)
            tries += 1
        }
        try #require(access(socketPath, F_OK) == 0, "dbus-daemon made no socket")
    }

    /// Debian's system bus, plus what ModemManager's own policy file (org.freedesktop.ModemManager1.conf) grants;
    /// the activation helper replaced, so that no call starts one of the host's services.
    private static let systemConfiguration = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <include>/usr/share/dbus-1/system.conf</include>
          <servicehelper>/bin/false</servicehelper>
          <policy user="root">
            <allow own="org.freedesktop.ModemManager1"/>
          </policy>
          <policy context="default">
            <allow send_destination="org.freedesktop.ModemManager1"/>
          </policy>
        </busconfig>

        """

    func stop() {
        // SIGKILL: a test must not wait on how the daemon handles SIGTERM.
        kill(daemon, SIGKILL)
        var status: Int32 = 0
        waitpid(daemon, &status, 0)
        removeTree(directory)
    }
}

/// The Python stand-in for NetworkManager or ModemManager (Fixtures/dbus/standin.py) on a bus, driven through
/// its stdin: each command returns once the stand-in has sent its signals.
final class StandIn {
    private let pid: pid_t
    private let input: Int32
    private let output: UnsafeMutablePointer<FILE>
    private var isStopped = false

    init(_ kind: String, bus: PrivateBus) throws {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        try #require(pipe(&toChild) == 0 && pipe(&fromChild) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        for descriptor in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let arguments = ["/usr/bin/python3", fixtureRoot + "/dbus/standin.py", kind, bus.address]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, arguments[0], &actions, nil, &argv, environ)
        close(toChild[0])
        close(fromChild[1])
        try #require(result == 0, "cannot start the stand-in")
        pid = child
        input = toChild[1]
        output = try #require(fdopen(fromChild[0], "r"))
        try #require(try readLine() == "ready")
    }

    /// Sends one command; returns what the stand-in printed before "ok".
    @discardableResult
    func send(_ command: String) throws -> [String] {
        let line = command + "\n"
        try #require(line.withCString { write(input, $0, strlen($0)) } == line.utf8.count)
        var printed: [String] = []
        while true {
            let answer = try readLine()
            if answer == "ok" { return printed }
            try #require(!answer.hasPrefix("error"), "\(command): \(answer)")
            printed.append(answer)
        }
    }

    /// Ends the stand-in as a stopping service would: its name leaves the bus.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        close(input)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        fclose(output)
    }

    private func readLine() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        try #require(fgets(&buffer, Int32(buffer.count), output) != nil, "the stand-in ended")
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingSuffix("\n")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// Values a watcher publishes, awaited with a deadline: the next one that satisfies a condition.
final class Changes<Value: Sendable>: Sendable {
    let stream: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation
    let read: @Sendable () -> Value

    init(_ read: @escaping @Sendable () -> Value) {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        self.read = read
    }

    /// Waits up to `timeout` for the value to satisfy `condition`, checking it now and after every change.
    func until(
        timeout: Duration = .seconds(10), _ condition: @escaping @Sendable (Value) -> Bool
    ) async -> Value? {
        let read = self.read
        let stream = self.stream
        return await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                if condition(read()) { return read() }
                for await _ in stream where condition(read()) { return read() }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// Runs Fixtures/dbus/forge.py as nobody (no groups): it sends `rounds` times each forged signal of `kind`
/// ("networkmanager" or "modemmanager") to every connection of this process and as a broadcast. Returns what it
/// printed; fails the test if it did not exit 0.
func forgeSignalsAsNobody(_ kind: String, bus: PrivateBus, rounds: Int) throws -> String {
    let output = bus.directory + "/forge.out"
    let command =
        "exec /usr/bin/setpriv --reuid nobody --regid nogroup --clear-groups /usr/bin/python3 "
        + "\(fixtureRoot)/dbus/forge.py \(kind) \(bus.address) \(getpid()) \(rounds) >\(output) 2>&1"
    let child = try #require(spawnProcess(["/bin/sh", "-c", command]))
    var status: Int32 = 0
    waitpid(child, &status, 0)
    let printed = String(decoding: HintFilesForTests.read(output) ?? [], as: UTF8.self)
    try #require(status == 0, "forge.py: \(printed)")
    return printed
}

/// Writes `text` to a new file at `path`; false if it cannot.
private func writeText(_ text: String, to path: String) -> Bool {
    guard let file = fopen(path, "w") else { return false }
    let written = fputs(text, file) >= 0
    return fclose(file) == 0 && written
}

func spawnProcess(_ arguments: [String]) -> pid_t? {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let result = posix_spawn(&pid, arguments[0], nil, nil, &argv, environ)
    return result == 0 ? pid : nil
}

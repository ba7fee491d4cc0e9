import Glibc
import Testing

@testable import NetworkHints

@Test func noBusIsReportedSoftly() {
    let source = ModemManagerIdentitySource(socketPath: "/nonexistent/system_bus_socket")
    #expect {
        try source.subscribers(forInterfaces: ["wwan0"])
    } throws: { error in
        guard case .noBus = error as? CellularIdentityUnavailable else { return false }
        return true
    }
}

/// A private dbus-daemon, when the machine has one: authentication, Hello and a call that must not start
/// ModemManager, answered ServiceUnknown, which the source reports as "not running".
@Test(.enabled(if: access("/usr/bin/dbus-daemon", X_OK) == 0)) func privateBusWithoutModemManager() throws {
    let directory = makeTemporaryDirectory()
    defer { removeTree(directory) }
    let socketPath = directory + "/bus"
    let daemon = try #require(
        spawn([
            "/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=unix:path=" + socketPath,
        ]))
    defer {
        // SIGKILL: a test must not wait on how the daemon handles SIGTERM.
        kill(daemon, SIGKILL)
        var status: Int32 = 0
        waitpid(daemon, &status, 0)
    }
    // The daemon creates its socket soon after start; poll briefly rather than sleep a fixed time.
    var tries = 0
    while access(socketPath, F_OK) != 0 && tries < 200 {
        usleep(10_000)
        tries += 1
    }
    let source = ModemManagerIdentitySource(socketPath: socketPath)
    #expect(throws: CellularIdentityUnavailable.serviceNotRunning) {
        try source.subscribers(forInterfaces: ["wwan0"])
    }
    // The connection itself works: Hello's reply names us.
    let connection = try DBusConnection(socketPath: socketPath)
    let reply = try connection.call(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "GetNameOwner", body: [.string("org.freedesktop.DBus")], signature: "s")
    #expect(reply.body == [.string("org.freedesktop.DBus")])
}

private func spawn(_ arguments: [String]) -> pid_t? {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let result = posix_spawn(&pid, arguments[0], nil, nil, &argv, environ)
    return result == 0 ? pid : nil
}

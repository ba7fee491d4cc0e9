// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A real GLib process: Debian's /usr/bin/python3 with python3-gi, holding `Gio.NetworkMonitor.get_default()` as an
/// application does (Fixtures/gio_monitor.py), inside the test namespace. GIO is offered the built pathmond module
/// through GIO_EXTRA_MODULES and picks a backend itself: GIO_USE_NETWORK_MONITOR is never set.
final class GLibMonitor {
    /// One line the process printed; which fields are present depends on `event`.
    struct Event: Decodable, CustomStringConvertible {
        struct Cost: Decodable {
            var descriptors: Int
            var threads: Int
            var newSockets: Int
            var newUnixSockets: Int
            var newNetlinkSockets: Int
        }

        /// The process before get_default().
        struct Before: Decodable {
            var descriptors: Int
            var threads: Int
        }

        var event: String
        /// CLOCK_MONOTONIC seconds in the GLib process.
        var at: Double
        var type: String?
        var seconds: Double?
        var before: Before?
        var cost: Cost?
        var available: Bool?
        var metered: Bool?
        var connectivity: String?
        var argument: Bool?
        var property: String?
        var reachable: Bool?
        var error: String?

        var description: String {
            [
                event, type, available.map { "available=\($0)" }, metered.map { "metered=\($0)" },
                connectivity.map { "connectivity=\($0)" }, property, reachable.map { "reachable=\($0)" }, error,
            ].compactMap { $0 }.joined(separator: " ")
        }

        /// The three properties, as one comparable value.
        var properties: Properties? {
            guard let available, let metered, let connectivity else { return nil }
            return Properties(available: available, metered: metered, connectivity: connectivity)
        }
    }

    struct Properties: Equatable, CustomStringConvertible {
        var available: Bool
        var metered: Bool
        var connectivity: String

        /// What GLib reports when it knows nothing, and the module while pathmond is away.
        static let defaults = Properties(available: true, metered: false, connectivity: "full")

        var description: String { "available=\(available) metered=\(metered) connectivity=\(connectivity)" }
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/gio_monitor.py").path

    /// Every event read so far, in order.
    private(set) var events: [Event] = []
    private var cursor = 0
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    private let errorPath: String

    /// Starts the process; `ready` is its first event (the backend GIO chose and the first properties).
    init(in namespace: NetworkNamespace, socketPath: String, directory: URL) throws {
        let modules = try Self.moduleDirectory(in: directory)
        errorPath = directory.appending(path: "gio-monitor-\(UUID().uuidString.prefix(8)).err").path
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = namespace.exec + ["/usr/bin/python3", Self.script]
        var environment = ProcessInfo.processInfo.environment
        for name in ["GIO_USE_NETWORK_MONITOR", "GIO_MODULE_DIR", "PYTHONPATH", "PYTHONHOME", "G_MESSAGES_DEBUG"] {
            environment[name] = nil
        }
        environment["GIO_EXTRA_MODULES"] = modules
        environment["PATHMOND_SOCKET"] = socketPath
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(filePath: errorPath))
        try process.run()
    }

    /// A directory holding only the built module: GIO tries to load every lib*.so of a module directory.
    static func moduleDirectory(in directory: URL) throws -> String {
        let built = productsDirectory.appending(path: "libpathmond-gio.so")
        guard FileManager.default.fileExists(atPath: built.path) else {
            throw GLibMonitorError(description: "\(built.path) is missing: swift build --product pathmond-gio")
        }
        let modules = directory.appending(path: "gio-modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let copy = modules.appending(path: "libpathmond-gio.so")
        if !FileManager.default.fileExists(atPath: copy.path) {
            try FileManager.default.copyItem(at: built, to: copy)
        }
        return modules.path
    }

    /// Sends one command line (state, reach HOST PORT, reach-async HOST PORT).
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// The next event, whatever it is; fails when none arrives before the deadline.
    func next(timeout: Duration = .seconds(15), _ description: String = "an event") throws -> Event {
        if cursor == events.count { try read(until: ContinuousClock.now + timeout, description) }
        cursor += 1
        return events[cursor - 1]
    }

    /// The next event of `kind`; the ones before it are returned too, so a test can say what may precede it.
    func next(kind: String, timeout: Duration = .seconds(15)) throws -> (skipped: [Event], event: Event) {
        var skipped: [Event] = []
        while true {
            let event = try next(timeout: timeout, "a \(kind) event")
            if event.event == kind { return (skipped, event) }
            skipped.append(event)
        }
    }

    /// The next network-changed, and the properties notified just before it.
    func nextChange(timeout: Duration = .seconds(15)) throws -> (notified: [String], change: Event) {
        let (skipped, change) = try next(kind: "changed", timeout: timeout)
        let others = skipped.filter { $0.event != "notify" }
        guard others.isEmpty else {
            throw GLibMonitorError(description: "unexpected events before network-changed: \(others)")
        }
        return (skipped.compactMap(\.property), change)
    }

    private func read(until deadline: ContinuousClock.Instant, _ description: String) throws {
        let before = events.count
        while events.count == before {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                do {
                    events.append(try JSONDecoder().decode(Event.self, from: Data(line)))
                } catch {
                    throw GLibMonitorError(description: "unreadable line \(String(decoding: line, as: UTF8.self))")
                }
                continue
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw timedOut(description) }
            var poller = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw timedOut(description + " (the GLib process exited)") }
            buffer.append(chunk)
        }
    }

    private func timedOut(_ description: String) -> GLibMonitorError {
        let stderr = (try? String(decoding: Data(contentsOf: URL(filePath: errorPath)), as: UTF8.self)) ?? ""
        return GLibMonitorError(
            description: "timed out waiting for \(description); events so far:\n"
                + events.map { "  \($0)" }.joined(separator: "\n") + "\nits standard error:\n" + stderr)
    }

    /// Closes its standard input (it quits its main loop then) and waits; SIGKILL if it lingers.
    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

struct GLibMonitorError: Error, CustomStringConvertible {
    var description: String
}

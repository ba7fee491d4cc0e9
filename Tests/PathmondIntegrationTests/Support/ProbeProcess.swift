// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The real `pathmond-probe --listen` in a test's namespace, where systemd would start one per connection: what
/// pathmond's connectivity check and RFC 8908 check ask. Its journal lines go to `probe.log` in `directory`.
final class ProbeProcess {
    let directory: URL
    private let process = Process()

    var socket: String { directory.appending(path: "probe.socket").path }

    init(directory: URL) { self.directory = directory }

    /// Starts the probe in `namespace`, trusting `caFile` instead of the system's store when given; returns once it
    /// listens.
    func start(namespace: String, caFile: String? = nil) throws {
        let log = directory.appending(path: "probe.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments =
            ["ip", "netns", "exec", namespace, product("pathmond-probe"), "--listen", socket]
            + (caFile.map { ["--ca-file", $0] } ?? [])
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        guard FileManager.default.fileExists(atPath: socket) else {
            throw CommandError.missing("pathmond-probe's socket")
        }
    }

    /// What the probe logged.
    var log: String { (try? String(contentsOf: directory.appending(path: "probe.log"), encoding: .utf8)) ?? "" }

    func stop() {
        // SIGKILL: the test process blocks SIGTERM in its threads, and a child inherits that.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

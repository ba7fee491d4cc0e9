// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The connectivity check's two far ends for a test: the real `pathmond-probe --listen` in the daemon's namespace
/// (`ProbeProcess`), and an HTTP server (Fixtures/connectivity_server.py) on the far
/// side of the veth, whose answer the test changes.
final class ConnectivityProbeSetting {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/connectivity_server.py").path

    let directory: URL
    private let server = Process()
    private let probe: ProbeProcess
    private let serverOutput = Pipe()

    var probeSocket: String { probe.socket }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "pathmond-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        probe = ProbeProcess(directory: directory)
        try setMode("portal")
    }

    /// Starts the probe in `namespace` and the server at `address` in `far`; returns once both listen.
    func start(namespace: String, far: String, address: String) throws {
        server.executableURL = URL(filePath: "/usr/bin/env")
        server.arguments = ["ip", "netns", "exec", far, "/usr/bin/python3", Self.script, directory.path, address]
        server.standardOutput = serverOutput
        server.standardError = FileHandle.standardError
        try server.run()
        let line = String(decoding: serverOutput.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else { throw CommandError.missing("the connectivity server's ready line") }
        try probe.start(namespace: namespace)
    }

    /// What the network answers from now on: "portal", "open", "204" or "html".
    func setMode(_ mode: String) throws {
        try Data(mode.utf8).write(to: directory.appending(path: "mode"), options: .atomic)
    }

    /// The requests so far: path and User-Agent, one line each.
    var requests: [String] {
        let text = (try? String(contentsOf: directory.appending(path: "requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// What the probe logged.
    var probeLog: String { probe.log }

    func stop() {
        // SIGKILL: the test process blocks SIGTERM in its threads, and a child inherits that.
        if server.isRunning {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        probe.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A captive portal's API (Fixtures/captive_portal_api.py) on the far side of a namespace's veth, over HTTPS with a
/// throwaway CA made by `openssl` at test time: `caFile` is what the probe is told to trust instead of the system.
final class PortalAPIServer {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/captive_portal_api.py").path

    let directory: URL
    let address: String
    private let process = Process()
    private let output = Pipe()

    var caFile: String { directory.appending(path: "ca.pem").path }

    /// Makes the CA and a certificate for `address` (an IP SAN); nothing is served until `start(in:)`.
    init(address: String) throws {
        self.address = address
        directory = FileManager.default.temporaryDirectory.appending(path: "pathmond-portal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try makeCertificates()
        try setAnswer(#"{"captive": true}"#)
    }

    /// Serves on port 443 of every address in `namespace`, so that the certificate can be tried under another.
    func start(in namespace: String) throws {
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [
            "ip", "netns", "exec", namespace, "/usr/bin/python3", Self.script, directory.path, "0.0.0.0",
        ]
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else { throw CommandError.missing("the portal API server's ready line") }
    }

    private func makeCertificates() throws {
        let path = { (name: String) in self.directory.appending(path: name).path }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try runCommand(
            ["openssl", "req", "-x509"] + ec + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "1", "-subj", "/CN=pathmond test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ])
        try runCommand(
            ["openssl", "req"] + ec + [
                "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=\(address)",
            ])
        try Data("subjectAltName=IP:\(address)\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: URL(filePath: path("server.ext")))
        try runCommand([
            "openssl", "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-out", path("server.pem"), "-days", "1", "-extfile", path("server.ext"),
        ])
    }

    /// What /api answers from now on.
    func setAnswer(_ json: String) throws {
        try Data(json.utf8).write(to: directory.appending(path: "answer.json"), options: .atomic)
    }

    /// The paths requested so far, in order.
    var requests: [String] {
        let text = (try? String(contentsOf: directory.appending(path: "requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func stop() {
        // SIGKILL: the test process blocks SIGTERM in its threads (pathmond's clients do), and a child inherits that.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

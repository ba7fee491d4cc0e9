// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathMonitor
import Testing

/// The README's examples work as written (issue 12): its Swift snippets compile in an app's package that depends
/// on this one by path, with `import PathMonitor` alone; its pathctl and generic-client lines run against a
/// pathmond in a network namespace.
@Suite(.serialized) struct ReadmeTests {
    @Test func swiftSnippetsCompileInAnAppPackage() throws {
        let blocks = try ReadmeExamples().blocks("swift")
        #expect(blocks.count >= 2, "the README shows the client library")
        let package = URL(filePath: "/tmp/pmit-readme-\(getpid())")
        try? FileManager.default.removeItem(at: package)
        let sources = package.appending(path: "Sources/ReadmeApp")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: package) }
        let manifest = """
            // swift-tools-version: 6.2
            import PackageDescription

            let package = Package(
                name: "ReadmeApp",
                platforms: [.macOS(.v15)],
                dependencies: [.package(name: "pathmond", path: "\(ReadmeExamples.root.path)")],
                targets: [
                    .executableTarget(
                        name: "ReadmeApp", dependencies: [.product(name: "PathMonitor", package: "pathmond")])
                ]
            )
            """
        try Data(manifest.utf8).write(to: package.appending(path: "Package.swift"))
        for (number, block) in blocks.enumerated() {
            let file = ReadmeExamples.swiftFile(block, number: number)
            try Data(file.utf8).write(to: sources.appending(path: "Example\(number).swift"))
        }
        try Data("print(\"ok\")\n".utf8).write(to: sources.appending(path: "main.swift"))
        // The app's own build directory: the package is built as an outsider would, from its sources.
        let build = try runCommand(
            ["swift", "build", "--package-path", package.path, "--product", "ReadmeApp"], check: false)
        #expect(build.status == 0, "the README's Swift does not compile:\n\(build.output)\(build.errorOutput)")
    }

    /// Lines a namespace can run: pathctl's and the Python Varlink client's. Lines about a Wi-Fi interface need a
    /// radio (nl80211 gives the SSID) and `monitor` never ends; varlinkctl runs only where systemd has it (255+).
    static func runnable(_ line: String) -> Bool {
        let command = line.split(separator: " ").first.map(String.init) ?? ""
        // Never ending, or running a command of the example's own (exec has ExecTests).
        if line.contains("wlan0") || line.contains("pathctl monitor") || line.contains("pathctl exec") { return false }
        if command == "varlinkctl" { return FileManager.default.isExecutableFile(atPath: "/usr/bin/varlinkctl") }
        return command == "pathctl" || command == ".build/release/pathctl" || line.hasPrefix("python3 -m varlink.cli")
    }

    @Test func shellExamplesRunAgainstADaemon() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        // `pathctl set-expensive eth0` needs eth0's network identified: its gateway resolved.
        try WiredIdentityTests.resolveGateway(scenario.namespace, "192.0.2.1")
        try await eventually("eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network != nil
        }

        var ran = 0
        for block in try ReadmeExamples().blocks("sh") {
            // Each block starts from a machine where the user has set nothing, as its prose assumes.
            let connection = try PathmondConnection(socketPath: socket)
            for network in try connection.networks() where network.constrained != nil || network.expensive != nil {
                try connection.forgetNetwork(key: network.key)
            }
            for line in block.split(separator: "\n").map(String.init) where Self.runnable(line) {
                let command =
                    line
                    .replacingOccurrences(of: ".build/release/pathctl", with: product("pathctl"))
                    .replacingOccurrences(of: "/run/pathmond/io.pathmond", with: socket)
                    .replacingOccurrences(
                        of: #"(^|[ (])pathctl "#, with: "$1\(product("pathctl")) ", options: .regularExpression)
                let result = try runCommand(
                    scenario.namespace.exec + ["env", "PATHMOND_SOCKET=\(socket)", "bash", "-c", command], check: false)
                // A gate answers with its documented statuses (1 unsatisfied, 2 expensive, 3 constrained); every
                // other example succeeds. 64 (usage) or 69 (no daemon) would be a README that lies.
                let isGate = line.contains("pathctl check") || line.contains("pathctl wait")
                let allowed: ClosedRange<Int32> = isGate ? 0...3 : 0...0
                #expect(allowed.contains(result.status), "\(line)\n→ \(result.status): \(result.errorOutput)")
                ran += 1
            }
        }
        #expect(ran >= 12, "the README's shell examples were found and run (\(ran))")
    }
}

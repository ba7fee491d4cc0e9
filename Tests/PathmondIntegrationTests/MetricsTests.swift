// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The metrics textfile end to end: pathmond writes it in a namespace as the path changes, Debian's real
/// node_exporter serves it over HTTP on a loopback test port, promtool accepts every version of it, and a reader
/// polling it through a storm of changes never sees it half-written.
@Suite(.serialized) struct MetricsTests {
    /// A directory for node_exporter's textfile collector, and the configuration that points pathmond at it.
    static func textfileDirectory() throws -> String {
        let directory = "/tmp/pmprom-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func configuration(_ directory: String) -> String {
        "[interface ww*]\ntype = cellular\n\n[metrics]\ntextfile = \(directory)/pathmond.prom\n"
    }

    /// A loopback port nothing listens on now (the kernel picks it; node_exporter binds it right after).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// What node_exporter serves at /metrics now (python3's urllib: no client library needed).
    static func scrape(port: Int) throws -> String {
        let script =
            "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
        return try runCommand(["python3", "-c", script, "http://127.0.0.1:\(port)/metrics"]).output
    }

    static func promtool(_ path: String) throws -> CommandResult {
        try runCommand(["sh", "-c", "promtool check metrics < \"$0\"", path], check: false)
    }

    @Test func nodeExporterServesPathmondsSeriesWithTheirValues() async throws {
        let directory = try Self.textfileDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.start(configuration: Self.configuration(directory)) { namespace in
            try namespace.addWiredUplink(routed: true)
        }
        defer { #expect(scenario.tearDown() == 0) }
        let port = try Self.freePort()
        let exporter = Process()
        exporter.executableURL = URL(filePath: "/usr/bin/prometheus-node-exporter")
        exporter.arguments = [
            "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
            "--collector.textfile.directory=\(directory)",
        ]
        exporter.standardOutput = FileHandle.nullDevice
        exporter.standardError = FileHandle.nullDevice
        try exporter.run()
        defer {
            exporter.terminate()
            exporter.waitUntilExit()
        }
        let file = directory + "/pathmond.prom"
        try await eventually("node_exporter serves a satisfied wired path") {
            let served = try Self.scrape(port: port)
            return served.contains("pathmond_path_status{status=\"satisfied\"} 1")
                && served.contains("pathmond_interface_usable{interface=\"eth0\"} 1")
                && served.contains("pathmond_interface_info{interface=\"eth0\",type=\"wired\"} 1")
                && served.contains("pathmond_build_info{version=")
        }
        #expect(try Self.promtool(file).status == 0)
        // node_exporter found nothing wrong with the file (it says so in its own series).
        #expect(try Self.scrape(port: port).contains("node_textfile_scrape_error 0"))

        // Fail over to an expensive cellular link: the wired one loses its route.
        try scenario.namespace.addVeth("wwan0", peer: "wwan0-peer")
        try scenario.namespace.ip("address add 203.0.113.10/24 dev wwan0")
        try scenario.namespace.ip("route add default via 203.0.113.1 dev wwan0 metric 500")
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try await eventually("the expensive path is served") {
            let served = try Self.scrape(port: port)
            return served.contains("pathmond_path_expensive 1")
                && served.contains("pathmond_interface_primary{interface=\"wwan0\"} 1")
                && served.contains("pathmond_interface_info{interface=\"wwan0\",type=\"cellular\"} 1")
        }
        #expect(try Self.promtool(file).status == 0)
        // Everything down: unsatisfied; a removed link's series are gone.
        try scenario.namespace.ip("link del wwan0")
        try scenario.namespace.farIP("link set eth0-peer down")
        try await eventually("the unsatisfied path is served") {
            let served = try Self.scrape(port: port)
            return served.contains("pathmond_path_status{status=\"unsatisfied\"} 1")
                && served.contains("pathmond_path_status{status=\"satisfied\"} 0")
                && !served.contains("interface=\"wwan0\"")
                && served.contains("pathmond_interface_up{interface=\"eth0\"} 0")
        }
        #expect(try Self.promtool(file).status == 0)
        let served = try Self.scrape(port: port)
        let changes = served.split(separator: "\n").first { $0.hasPrefix("pathmond_path_changes_total ") }
        #expect((changes.flatMap { Double($0.split(separator: " ")[1]) } ?? 0) >= 3)

        // Stopped, pathmond takes its file away: node_exporter must not go on serving its last word.
        #expect(scenario.daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try !Self.scrape(port: port).contains("pathmond_"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no temporary file left")
    }

    @Test func aReaderNeverSeesTheFileHalfWritten() async throws {
        let directory = try Self.textfileDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.start(configuration: Self.configuration(directory)) { namespace in
            try namespace.addWiredUplink(routed: true)
        }
        defer { #expect(scenario.tearDown() == 0) }
        let file = directory + "/pathmond.prom"
        // The first file already shows the kernel's state: pathmond writes nothing before it knows the path.
        try await eventually("the first file") { FileManager.default.fileExists(atPath: file) }
        let first = try String(contentsOfFile: file, encoding: .utf8)
        #expect(first.contains("pathmond_path_status{status=\"satisfied\"} 1"))
        #expect(first.contains("pathmond_interface_up{interface=\"eth0\"} 1"))
        // 17 families of the daemon and the path, 9 per-interface ones; the storm keeps eth0, so all 26 stay.
        let families = first.components(separatedBy: "# TYPE ").count - 1
        #expect(families == 26)
        // A storm: the carrier flaps for about three seconds, then stays down. Linkwatch spaces a device's carrier
        // events up to a second apart and folds a quick down-and-up away, and the file shows a state at most once
        // a second: the flaps alone may leave the file as it was, the carrier left down never does.
        let storm = Process()
        storm.executableURL = URL(filePath: "/bin/sh")
        storm.arguments = [
            "-c",
            "end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do "
                + "ip -n \(scenario.namespace.far) link set eth0-peer down; "
                + "ip -n \(scenario.namespace.far) link set eth0-peer up; done; "
                + "ip -n \(scenario.namespace.far) link set eth0-peer down",
        ]
        try storm.run()
        var reads = 0
        var versions = Set<String>()
        let deadline = ContinuousClock.now + .seconds(10)
        while storm.isRunning || reads < 100 || (versions.count < 2 && ContinuousClock.now < deadline) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            reads += 1
            let seen = text.components(separatedBy: "# TYPE ").count - 1
            #expect(seen == families && text.hasSuffix("\n"), "read \(reads) saw \(seen) of \(families) families")
            if seen != families { break }
            versions.insert(text)
        }
        storm.waitUntilExit()
        // The file really changed under the reader, and each version it saw was valid for promtool.
        #expect(versions.count >= 2)
        for version in versions.prefix(5) {
            let path = directory + "/version.txt"
            try Data(version.utf8).write(to: URL(filePath: path))
            #expect(try Self.promtool(path).status == 0)
        }
    }
}

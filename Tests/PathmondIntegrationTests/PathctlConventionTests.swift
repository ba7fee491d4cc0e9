// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// pathctl follows the conventions networkctl and resolvectl users already have (issue 12): each test here is a
/// finding of a user who tried pathctl as they would try networkctl.
@Suite(.serialized) struct PathctlConventionTests {
    static func scenario() throws -> Scenario {
        try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
        }
    }

    /// Runs pathctl with `arguments` through env(1), so a test can set or unset variables first.
    static func pathctl(_ arguments: [String], environment: [String] = ["-u", "COLUMNS"]) throws -> CommandResult {
        try runCommand(environment + [product("pathctl")] + arguments, check: false)
    }

    @Test func globalOptionsComeBeforeOrAfterTheVerb() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        for arguments in [
            ["--socket", socket, "status"], ["--socket=\(socket)", "status"], ["status", "--socket", socket],
            ["--socket", socket],
        ] {
            let result = try Self.pathctl(arguments)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
            #expect(result.output.hasPrefix("Path: satisfied via eth0"), "\(arguments)")
        }
        let json = try Self.pathctl(["--json=short", "--socket", socket, "networks"])
        #expect(json.status == 0 && json.output.hasPrefix("["), "\(json.errorOutput)")
    }

    @Test func theSocketComesFromTheEnvironment() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let result = try Self.pathctl(["status"], environment: ["PATHMOND_SOCKET=\(scenario.daemon.socketPath)"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.hasPrefix("Path: satisfied via eth0"))
        // --socket still wins over the environment.
        let overridden = try Self.pathctl(
            ["status", "--socket", "/tmp/pmit-nonexistent/io.pathmond"],
            environment: ["PATHMOND_SOCKET=\(scenario.daemon.socketPath)"])
        #expect(overridden.status == 69)
    }

    @Test(arguments: [["stauts"], ["--socket", "/tmp/x", "stauts"], ["netwroks", "--json"]])
    func anUnknownVerbIsAnErrorNamingTheVerbs(arguments: [String]) throws {
        let result = try Self.pathctl(arguments)
        #expect(result.status == 64)
        #expect(
            result.errorOutput.contains("unknown verb '\(arguments.first { !$0.hasPrefix("-") && $0 != "/tmp/x" }!)'"))
        #expect(result.errorOutput.contains("status, monitor, check, wait"), "\(result.errorOutput)")
        #expect(result.output.isEmpty)
    }

    /// The packaging generates completions and the man page through root options the normaliser leaves alone.
    @Test func completionScriptsAndTheManualPageStillWork() throws {
        let bash = try Self.pathctl(["--generate-completion-script", "bash"])
        #expect(bash.status == 0 && bash.output.contains("pathctl") && bash.output.contains("set-constrained"))
        let page = try Self.pathctl(["--generate-manual", "November 28, 2026"])
        #expect(page.status == 0 && page.output.contains(".Dd November 28, 2026\n.Dt PATHCTL 1"))
        #expect(page.output.contains(".It Em set-constrained\n"), "\(page.output)")
    }

    @Test func aPolicyVerbWithoutTargetSaysWhatIsMissing() throws {
        let neither = try Self.pathctl(["set-constrained", "--socket", "/tmp/x"])
        #expect(neither.status == 64)
        #expect(neither.errorOutput.contains("Name an interface (e.g. wlan0) or give a network key with --key."))
        #expect(!neither.errorOutput.contains("not both"))
        let both = try Self.pathctl(["set-constrained", "eth0", "--key", "wifi:Home", "--socket", "/tmp/x"])
        #expect(both.status == 64)
        #expect(both.errorOutput.contains("Give either an interface or --key, not both."))
    }

    /// pathmond's refusals read as sentences, not as "pathmond answered <sentence>".
    @Test func refusalsAreSentences() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        // wwan0 has no modem behind it: no SIM, so no network to mark.
        let result = try Self.pathctl(["set-constrained", "wwan0", "--socket", socket])
        #expect(result.status == 1)
        #expect(
            result.errorOutput.contains("pathctl: the network on wwan0 is not identified yet"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("answered"))
        let missing = try Self.pathctl(["set-constrained", "wlan9", "--socket", socket])
        #expect(missing.errorOutput.contains("pathctl: no interface named wlan9"), "\(missing.errorOutput)")
    }

    @Test func jsonComesShortOrPretty() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        let short = try Self.pathctl(["status", "--json=short", "--socket", socket]).output
        #expect(short.split(separator: "\n").count == 1, "one line: \(short)")
        #expect(try JSONSerialization.jsonObject(with: Data(short.utf8)) is [String: Any])
        // Piped, a bare --json is short too (networkctl's -j): scripts get one value per line. (The last change
        // may move on between two calls: the layout is what is compared.)
        let bare = try Self.pathctl(["status", "--json", "--socket", socket]).output
        #expect(bare.split(separator: "\n").count == 1, "one line: \(bare)")
        #expect(bare.hasPrefix(String(short.prefix(while: { $0 != "," }))))

        let pretty = try Self.pathctl(["status", "--json=pretty", "--socket", socket]).output
        #expect(try JSONSerialization.jsonObject(with: Data(pretty.utf8)) is [String: Any])
        let lines = pretty.split(separator: "\n").map(String.init)
        #expect(lines.first == "{" && lines.last == "}")
        #expect(lines.contains("  \"daemon\": {"), "two-space indent, no space before the colon")
        #expect(!pretty.contains("\" : "))
        // lo has no default route: an empty array prints as [], not as a bracket on each of two lines. (Not wwan0's
        // addresses: once its veth has carrier the kernel gives it a link-local address, sooner or later.)
        #expect(pretty.contains("\"routes\": []"))
        #expect(!pretty.contains("[\n\n"))
        // The same state prints the same bytes. The daemon may still be settling (a gateway resolving, a last
        // change recorded), so two calls in a row must agree within a few tries, not necessarily the first two.
        var previous = pretty
        var agreed = false
        for _ in 0..<20 {
            let next = try Self.pathctl(["status", "--json=pretty", "--socket", socket]).output
            if next == previous {
                agreed = true
                break
            }
            previous = next
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(agreed, "two calls in a row print the same bytes")
    }

    @Test func tablesFitTheTerminalAndPipesGetEverything() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        try WiredIdentityTests.resolveGateway(scenario.namespace, "192.0.2.1")
        let gatewayMAC = try WiredIdentityTests.peerAddress(scenario.namespace, "eth0-peer")
        let description = "wired network via gateway 192.0.2.1 (\(gatewayMAC))"
        try await eventually("eth0's network described") {
            try Self.pathctl(["status", "--socket", socket]).output.contains(description)
        }

        let piped = try Self.pathctl(["status", "--socket", socket]).output
        #expect(piped.components(separatedBy: "\n").contains { $0.count > 80 }, "piped output is not cut: \(piped)")
        let narrow = try Self.pathctl(["status", "--socket", socket], environment: ["COLUMNS=80"]).output
        let long = narrow.components(separatedBy: "\n").dropFirst().filter { $0.count > 80 }
        #expect(long.isEmpty, "every table line fits 80 columns: \(narrow)")
        #expect(narrow.contains("…"))
        #expect(!narrow.contains("192.0.2.1…") && !narrow.contains("192.0.2.…"), "an address is whole or absent")
        #expect(narrow.contains("eth0") && narrow.contains("wwan0"))
    }

    /// On a real terminal (a pty from script(1)) and without $COLUMNS, the width comes from the terminal itself,
    /// and a bare --json is pretty, as networkctl's -j.
    @Test func aTerminalGivesTheWidthAndPrettyJSON() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let pathctl = "\(product("pathctl")) --socket \(scenario.daemon.socketPath)"
        // In the daemon's namespace: no warning line joins the output on the terminal.
        let result = try runCommand(
            scenario.namespace.exec + [
                "env", "-u", "COLUMNS", "script", "-qec", "stty cols 80; \(pathctl) status; \(pathctl) status --json",
                "/dev/null",
            ])
        let lines = result.output.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n")
        let table = lines.prefix { !$0.hasPrefix("{") }.dropFirst()
        #expect(table.contains { $0.contains("INTERFACE") })
        #expect(table.allSatisfy { $0.count <= 80 }, "\(table.joined(separator: "\n"))")
        #expect(lines.contains("  \"daemon\": {"), "a bare --json on a terminal is pretty")
    }

    @Test func requirementsNarrowTheWholeOutput() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        let wifi = try Self.pathctl(["status", "--require", "wifi", "--socket", socket]).output
        #expect(wifi.hasPrefix("Path: unsatisfied"))
        #expect(!wifi.contains("eth0") && !wifi.contains("wwan0"), "no interface of another type is listed: \(wifi)")
        let cheap = try Self.pathctl(["status", "--no-expensive", "--socket", socket]).output
        #expect(cheap.contains("eth0") && !cheap.contains("wwan0"), "\(cheap)")
        let json = try Self.pathctl(["status", "--interface", "eth0", "--json", "--socket", socket]).output
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let names = (document["interfaces"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["eth0"])
    }

    @Test func noLegendDropsTheHeader() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        let plain = try Self.pathctl(["status", "--socket", socket]).output
        #expect(plain.contains("IDX"))
        let bare = try Self.pathctl(["--no-legend", "--no-pager", "status", "--socket", socket])
        #expect(bare.status == 0)
        #expect(!bare.output.contains("IDX") && bare.output.contains("eth0"))
    }

    @Test func aDaemonInAnotherNetworkNamespaceIsNoticed() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        // The tests run in the host's namespace; the daemon watches the test namespace.
        let outside = try Self.pathctl(["status", "--socket", socket])
        #expect(outside.status == 0)
        #expect(outside.errorOutput.contains("pathmond is running in a different network namespace"))
        let inside = try runCommand(scenario.namespace.exec + [product("pathctl"), "status", "--socket", socket])
        #expect(inside.output.hasPrefix("Path: satisfied"))
        #expect(!inside.errorOutput.contains("namespace"), "\(inside.errorOutput)")
        // A gate that must print nothing stays quiet.
        let quiet = try Self.pathctl(["check", "--quiet", "--socket", socket])
        #expect(quiet.status == 0 && quiet.errorOutput.isEmpty)
    }
}

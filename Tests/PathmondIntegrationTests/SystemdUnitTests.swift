// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// systemd/pathmond.service, pathmond.socket and the wait-online units are checked by systemd's own parser, against
/// the binaries the tests built: an unknown option, a misspelt system call group or a bad value is reported by
/// `systemd-analyze verify`.
/// How they behave under a booted systemd is Tests/Service/booted-systemd-test's job.
@Suite struct SystemdUnitTests {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "systemd")

    static func lines(_ name: String) throws -> Set<String> {
        let text = try String(decoding: Data(contentsOf: directory.appending(path: name)), as: UTF8.self)
        return Set(text.split(separator: "\n").map(String.init))
    }

    @Test func unitsVerifyCleanly() throws {
        let copies = FileManager.default.temporaryDirectory.appending(path: "pmit-unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copies) }
        // The template is verified as an instance: systemd-analyze loads units, and a template is no unit.
        let names = [
            ("pathmond.service", "pathmond.service"), ("pathmond.socket", "pathmond.socket"),
            ("pathmond-wait-online.service", "pathmond-wait-online.service"),
            ("pathmond-wait-online@.service", "pathmond-wait-online@eth0.service"),
        ]
        for (name, copy) in names {
            let text = try String(decoding: Data(contentsOf: Self.directory.appending(path: name)), as: UTF8.self)
            let local = text.replacingOccurrences(of: "/usr/sbin/pathmond", with: product("pathmond"))
                .replacingOccurrences(of: "/usr/bin/pathctl", with: product("pathctl"))
            try Data(local.utf8).write(to: copies.appending(path: copy))
        }
        // --man=no: the pages in Documentation= exist once the package installs them (the booted test reads them).
        let result = try runCommand(
            ["systemd-analyze", "verify", "--man=no"] + names.map { copies.appending(path: $0.1).path }, check: false)
        #expect(result.status == 0)
        #expect(result.output + result.errorOutput == "", "systemd-analyze verify complained")
    }

    @Test func serviceIsANotifyServiceThatReloadsRestartsAndKeepsState() throws {
        let settings = try Self.lines("pathmond.service")
        for line in [
            "Type=notify", "Restart=on-failure", "StateDirectory=pathmond", "ExecReload=/bin/kill -HUP $MAINPID",
            "Requires=pathmond.socket", "After=pathmond.socket", "Also=pathmond.socket",
            // A filtered call fails instead of killing the process: libdispatch's setpriority(2) did (31/SYS).
            "SystemCallErrorNumber=EPERM",
        ] {
            #expect(settings.contains(line), "\(line)")
        }
        #expect(settings.contains { $0.hasPrefix("ExecStart=/usr/sbin/pathmond ") && $0.contains("--state-dir") })
        // systemd would delete a RuntimeDirectory, and the socket in it, on every stop.
        #expect(!settings.contains { $0.hasPrefix("RuntimeDirectory=") })
        let limit = settings.first { $0.hasPrefix("LimitNOFILE=") }.flatMap { Int($0.dropFirst("LimitNOFILE=".count)) }
        #expect((limit ?? 0) >= 16384, "room for thousands of clients")
    }

    @Test func socketUnitOwnsTheSocketEveryoneMayConnectTo() throws {
        let settings = try Self.lines("pathmond.socket")
        for line in [
            "ListenStream=/run/pathmond/io.pathmond", "SocketMode=0666", "WantedBy=sockets.target",
            "Symlinks=/run/varlink/registry/io.pathmond",
        ] {
            #expect(settings.contains(line), "\(line)")
        }
        let service = try Self.lines("pathmond.service")
        #expect(service.contains { $0.contains("--socket /run/pathmond/io.pathmond") })
    }

    @Test(arguments: ["apt-daily.service", "apt-daily-upgrade.service"])
    func aptJobsWaitForAnUnmeteredPath(unit: String) throws {
        let settings = try Self.lines("\(unit).d/pathmond-unmetered.conf")
        #expect(settings.contains("[Service]"))
        // Deferred on an expensive path, and run anyway past a week: a metered-only host still gets updates.
        #expect(settings.contains("ExecCondition=/usr/bin/pathctl check --unmetered --max-deferral 7d"))
    }

    /// network-online.target's provider, shaped as systemd-networkd-wait-online.service and
    /// NetworkManager-wait-online.service are: a oneshot that stays active, ordered before the target and wanted by
    /// it once enabled; for the system path, and per interface as a template.
    @Test(arguments: ["pathmond-wait-online.service", "pathmond-wait-online@.service"])
    func waitOnlineHoldsNetworkOnlineTargetBack(unit: String) throws {
        let settings = try Self.lines(unit)
        for line in [
            "Type=oneshot", "RemainAfterExit=yes", "Before=network-online.target", "WantedBy=network-online.target",
            "Wants=pathmond.socket", "After=pathmond.socket", "Environment=PATHMOND_WAIT_ONLINE_TIMEOUT=120",
        ] {
            #expect(settings.contains(line), "\(line)")
        }
        // Wants=, not Requires=: a restart of the socket on upgrade would run the wait again.
        #expect(!settings.contains { $0.hasPrefix("Requires=") || $0.hasPrefix("BindsTo=") })
        let start = try #require(settings.first { $0.hasPrefix("ExecStart=") })
        #expect(start.hasPrefix("ExecStart=/usr/bin/pathctl wait --timeout ${PATHMOND_WAIT_ONLINE_TIMEOUT}"))
        #expect(start.hasSuffix(" $PATHMOND_WAIT_ONLINE_OPTIONS"))
        #expect(start.contains("--interface %i") == unit.contains("@"))
    }

    /// The package leaves network-online.target alone until the administrator enables a wait-online unit: the
    /// network's own manager provides one already, and this one would hold a laptop's boot back with no network.
    @Test func thePackageDoesNotEnableWaitOnline() throws {
        let root = Self.directory.deletingLastPathComponent()
        func text(_ path: String) throws -> String {
            try String(decoding: Data(contentsOf: root.appending(path: path)), as: UTF8.self)
        }
        // scripts/package's .deb: the units its hand-written debhelper part enables.
        let postinst = try text("packaging/postinst.debhelper")
        let enabled = try #require(postinst.split(separator: "\n").first { $0.contains("for unit in ") })
        #expect(!enabled.contains("wait-online"))
        // The source package's: dh_installsystemd enables the units it is given unless told --no-enable.
        let calls = try text("debian/rules").replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .filter { $0.hasPrefix("\tdh_installsystemd ") }
        #expect(calls.count == 2)
        for call in calls {
            #expect(call.contains("pathmond-wait-online.service") == call.contains("--no-enable"), "\(call)")
        }
        let package = try text("scripts/package")
        #expect(package.contains("systemd/pathmond-wait-online.service"))
        #expect(package.contains("systemd/pathmond-wait-online@.service"))
    }

    /// The command line in the units is one that pathctl accepts: with pathmond absent and no time to wait it ends
    /// in 69 (pathmond never answered), not 64 (a usage error), whatever parses pathctl's arguments.
    @Test(arguments: ["pathmond-wait-online.service", "pathmond-wait-online@.service"])
    func waitOnlineCommandLineIsOnePathctlAccepts(unit: String) throws {
        let settings = try Self.lines(unit)
        let start = try #require(settings.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let words = start.split(separator: " ").flatMap { word -> [String] in
            switch word {
            case "/usr/bin/pathctl": return [product("pathctl")]
            case "${PATHMOND_WAIT_ONLINE_TIMEOUT}": return ["0"]
            // What the unit's comments offer as an example.
            case "$PATHMOND_WAIT_ONLINE_OPTIONS": return ["--unmetered", "--require", "wired"]
            case "%i": return ["eth0"]
            default: return [String(word)]
            }
        }
        let result = try runCommand(words + ["--socket", "/nonexistent/io.pathmond"], check: false)
        #expect(result.status == 69, "\(words): \(result.errorOutput)")
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// systemd/pathmond.service and pathmond.socket are checked by systemd's own parser, against the binary the tests
/// built: an unknown option, a misspelt system call group or a bad value is reported by `systemd-analyze verify`.
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
        for name in ["pathmond.service", "pathmond.socket"] {
            let text = try String(decoding: Data(contentsOf: Self.directory.appending(path: name)), as: UTF8.self)
            try Data(text.replacingOccurrences(of: "/usr/sbin/pathmond", with: product("pathmond")).utf8).write(
                to: copies.appending(path: name))
        }
        // --man=no: the pages in Documentation= exist once the package installs them (the booted test reads them).
        let result = try runCommand(
            [
                "systemd-analyze", "verify", "--man=no", copies.appending(path: "pathmond.service").path,
                copies.appending(path: "pathmond.socket").path,
            ], check: false)
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
}

import Foundation
import Testing

/// systemd/pathmond.service is checked by systemd's own parser, against the binary the tests built: an unknown
/// option, a misspelt system call group or a bad value is reported by `systemd-analyze verify`.
@Suite struct SystemdUnitTests {
    static let unit = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "systemd/pathmond.service")

    @Test func unitVerifiesCleanly() throws {
        let text = try String(decoding: Data(contentsOf: Self.unit), as: UTF8.self)
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "pmit-unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appending(path: "pathmond.service")
        try Data(text.replacingOccurrences(of: "/usr/local/bin/pathmond", with: product("pathmond")).utf8).write(
            to: copy)
        let result = try runCommand(["systemd-analyze", "verify", copy.path], check: false)
        #expect(result.status == 0)
        #expect(result.output + result.errorOutput == "", "systemd-analyze verify complained")
    }

    @Test func unitIsANotifyServiceThatRestartsAndKeepsState() throws {
        let text = try String(decoding: Data(contentsOf: Self.unit), as: UTF8.self)
        let settings = Set(text.split(separator: "\n").map(String.init))
        for line in ["Type=notify", "Restart=on-failure", "StateDirectory=pathmond", "RuntimeDirectory=pathmond"] {
            #expect(settings.contains(line), "\(line)")
        }
        #expect(settings.contains { $0.hasPrefix("ExecStart=/usr/local/bin/pathmond ") && $0.contains("--state-dir") })
    }
}

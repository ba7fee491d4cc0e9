// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The GIO module lives in every GLib process: whatever a server on its socket says, the process must live on,
/// stay responsive and report sane values. A fake pathmond (Fixtures/hostile_server.py) misbehaves on purpose;
/// a real GLib process (Fixtures/gio_hostile.py, Debian's python3-gi) holds the default monitor against it.
@Suite(.serialized) struct GIOHostileServerTests {
    /// What gio_hostile.py printed; which fields are present depends on the mode.
    struct Report: Decodable, CustomStringConvertible {
        var type: String
        var available: Bool
        var metered: Bool
        var connectivity: String
        var connections: Int
        var notifications: Int
        var meteredNotifications: Int
        var meteredBefore: Bool?
        var timedOut: Bool?
        var mostIterationsBeforeIdle: Int?
        var longestIdleWait: Double?
        var cpuSeconds: Double?
        var seconds: Double?

        var description: String {
            "\(type) available=\(available) metered=\(metered) connectivity=\(connectivity) "
                + "connections=\(connections) notifications=\(notifications)"
        }
    }

    static let fixtures = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")

    /// A directory the GLib process, the server and (for the privileged test) nobody can all use.
    static func workDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "pathmond-gio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        return directory
    }

    /// Runs gio_hostile.py MODE SCENARIO; the GLib process must exit 0 (no signal) and print its report.
    static func run(_ mode: String, _ scenario: String) throws -> Report? {
        let work = try workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let modules = try GLibMonitor.moduleDirectory(in: work)
        let script = fixtures.appending(path: "gio_hostile.py").path
        let result = try runCommand(["/usr/bin/python3", script, mode, scenario, modules, work.path], check: false)
        #expect(result.status == 0, "\(mode) \(scenario): exit \(result.status)\n\(result.errorOutput)")
        guard result.status == 0, let line = result.output.split(separator: "\n").last else { return nil }
        return try JSONDecoder().decode(Report.self, from: Data(line.utf8))
    }

    /// Replies that can never be a path, or that are one path to one reader and another to the next (`duplicate-`: a
    /// member named twice, the first expensive, the last cheap). `-after-path` sends them after a valid, expensive
    /// path.
    static let badReplies = [
        "nul", "garbage", "non-object", "number", "string", "null", "wrong-types", "missing-path",
        "path-not-object", "error", "error-not-string", "deep", "over-limit", "endless", "duplicate-path",
        "duplicate-member",
    ]

    /// During get_default(): init() fails and GIO falls through to a built-in backend; the process lives.
    @Test(arguments: badReplies)
    func aBadFirstReplyFallsThroughToGLib(_ scenario: String) throws {
        guard let report = try Self.run("survive", scenario) else { return }
        #expect(report.type != "PathmondNetworkMonitor", "\(report)")
    }

    /// After a path: the connection is dropped and made again with backoff; the last path holds meanwhile (no
    /// metered flapping), and the server's next path is followed.
    @Test(arguments: badReplies)
    func aBadReplyAfterAPathKeepsTheLastPathAndReconnects(_ scenario: String) throws {
        guard let report = try Self.run("survive", "\(scenario)-after-path") else { return }
        #expect(report.type == "PathmondNetworkMonitor")
        #expect(report.available && report.metered && report.connectivity == "full", "\(report)")
        #expect(report.meteredNotifications == 0, "\(report)")
        #expect(report.connections >= 2, "\(report)")
    }

    /// A path of 10 000 usable interfaces (about 1 MiB) is a path, not an attack: the module reads WatchPath replies
    /// up to the limit the method table gives them (pathmond-protocol.h), where it once stopped at 64 KiB.
    @Test func aPathLargerThanACallIsFollowed() throws {
        guard let report = try Self.run("survive", "large") else { return }
        #expect(report.type == "PathmondNetworkMonitor", "\(report)")
        #expect(report.available && report.metered && report.connections == 1, "\(report)")
    }

    /// A reply that ends the call, followed by one more: only the newest of a read is taken, and it is a path.
    @Test func extraRepliesAfterTheEndOfTheCall() throws {
        guard let report = try Self.run("survive", "ended-after-path") else { return }
        #expect(report.type == "PathmondNetworkMonitor")
        #expect(report.metered, "\(report)")
    }

    /// 100 000 paths as fast as the server can write them: the application's idle work still runs every main-loop
    /// iteration, and the process ends on the last path sent (the only unsatisfied one).
    @Test func aFloodNeitherStarvesTheMainLoopNorLosesTheLastPath() throws {
        guard let report = try Self.run("flood", "flood") else { return }
        #expect(report.timedOut == nil, "\(report)")
        #expect((report.mostIterationsBeforeIdle ?? .max) <= 2, "\(report)")
        #expect(!report.available && report.connectivity == "local", "\(report)")
    }

    /// A pathmond that answers and dies, again and again: the backoff keeps growing (at most 1 + 6 attempts in
    /// 8 s: after 0.1, 0.2, 0.4, 0.8, 1.6 and 3.2 s, up to a quarter more each), where resetting it on every path
    /// made about 80, and the properties hold the path it keeps giving, also once the delay outgrows the grace
    /// period (about 6 s in).
    @Test func aCrashLoopingServerIsRetriedWithGrowingBackoff() throws {
        guard let report = try Self.run("crash-loop", "crash-loop") else { return }
        #expect(report.type == "PathmondNetworkMonitor")
        #expect(report.connections >= 4 && report.connections <= 8, "\(report)")
        #expect(report.metered && report.meteredNotifications == 0, "\(report)")
    }

    /// unattended-upgrades' way: get_default(), get_network_metered(), and never a main-loop iteration; a path that
    /// turns expensive meanwhile is seen by the next get_network_metered().
    @Test func gettersSeeANewPathWithoutAMainLoop() throws {
        guard let report = try Self.run("no-loop", "serve") else { return }
        #expect(report.type == "PathmondNetworkMonitor")
        #expect(report.meteredBefore == false, "\(report)")
        #expect(report.metered, "\(report)")
    }

    /// Without a main loop the getters reconnect too, once the delay is due, and without blocking: a pathmond
    /// restarted under a process that never iterates is followed again.
    @Test func gettersReconnectWithoutAMainLoop() throws {
        guard let report = try Self.run("no-loop-reconnect", "restart") else { return }
        #expect(report.type == "PathmondNetworkMonitor")
        #expect(report.meteredBefore == false, "\(report)")
        #expect(report.metered && report.connections == 2, "\(report)")
    }

    struct ProbeResult: Decodable {
        var status: Int32
        var output: String
        var errors: String
        var connections: Int
    }

    /// A set-gid program run by nobody (the kernel sets AT_SECURE) must not take $PATHMOND_SOCKET from its caller;
    /// the same program without the set-gid bit does, which shows the probe can see a connection.
    @Test func aPrivilegedProcessIgnoresPathmondSocket() throws {
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let modules = try GLibMonitor.moduleDirectory(in: work)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: modules)
        let program = work.appending(path: "gio-privileged").path
        try runCommand([
            "sh", "-c",
            "cc -Wall -Wextra -Werror -o \"$0\" \"$1\" $(pkg-config --cflags --libs gio-2.0)", program,
            Self.fixtures.appending(path: "gio_privileged.c").path,
        ])

        func probe(mode: Int) throws -> ProbeResult {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: program)
            let result = try runCommand([
                "/usr/bin/python3", Self.fixtures.appending(path: "privileged_probe.py").path, work.path,
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", program, modules,
            ])
            return try JSONDecoder().decode(ProbeResult.self, from: Data(result.output.utf8))
        }

        let plain = try probe(mode: 0o755)
        #expect(plain.status == 0 && plain.connections == 1, "\(plain)")
        #expect(plain.output.hasPrefix("PathmondNetworkMonitor"), "\(plain)")
        let setgid = try probe(mode: 0o2755)
        #expect(setgid.status == 0 && setgid.connections == 0, "\(setgid)")
        #expect(!setgid.output.hasPrefix("PathmondNetworkMonitor"), "\(setgid)")
    }

    /// The module's sources built with AddressSanitizer and UndefinedBehaviorSanitizer (gcc; undefined behaviour
    /// aborts, not warns) and run in python3 with libasan preloaded: the hostile scenarios must show no memory error
    /// and no undefined behaviour, and no leak report may pass through the module (python3 and GLib
    /// leak on their own at exit; those reports are not the module's). GLib's slice allocator would hide leaks of
    /// GBytes and its libraries lack frame pointers: always-malloc and the slow unwinder make them show.
    @Test func theHostileScenariosAreCleanUnderAddressAndUndefinedSanitizers() throws {
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let modules = work.appending(path: "asan-modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let sources = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/PathmondGIO").path
        try runCommand([
            "sh", "-c",
            "gcc -shared -fPIC -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined "
                + "-fno-omit-frame-pointer -I\"$1\" -I\"$1/include\" "
                + "$(pkg-config --cflags gio-2.0 json-glib-1.0) \"$1\"/*.c -o \"$0\" "
                + "$(pkg-config --libs gio-2.0 json-glib-1.0)",
            modules.appending(path: "libpathmond-gio.so").path, sources,
        ])
        let libasan = try runCommand(["gcc", "-print-file-name=libasan.so"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let script = Self.fixtures.appending(path: "gio_hostile.py").path
        let runs = [
            ("survive", "nul"), ("survive", "nul-after-path"), ("survive", "garbage-after-path"),
            ("survive", "deep-after-path"), ("survive", "over-limit-after-path"), ("survive", "endless-after-path"),
            ("survive", "error-after-path"), ("survive", "ended-after-path"), ("flood", "flood"),
            ("crash-loop", "crash-loop"), ("no-loop", "serve"), ("survive", "large"),
            ("survive", "duplicate-path-after-path"),
        ]
        for (index, (mode, scenario)) in runs.enumerated() {
            let directory = work.appending(path: "run-\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let result = try runCommand(
                [
                    "LD_PRELOAD=\(libasan)", "ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0",
                    "G_SLICE=always-malloc", "/usr/bin/python3", script, mode, scenario, modules.path, directory.path,
                ], check: false)
            // Leak reports make the exit status non-zero; the report line says the process got to its end.
            #expect(result.output.contains("\"type\""), "\(mode) \(scenario): \(result.errorOutput)")
            #expect(
                !result.errorOutput.contains("ERROR: AddressSanitizer"), "\(mode) \(scenario): \(result.errorOutput)")
            #expect(!result.errorOutput.contains("runtime error:"), "\(mode) \(scenario): \(result.errorOutput)")
            let moduleLeaks = result.errorOutput.components(separatedBy: "\n\n").filter {
                $0.contains("leak of") && ($0.contains("libpathmond-gio") || $0.contains("pathmond_"))
            }
            #expect(moduleLeaks.isEmpty, "\(mode) \(scenario): \(moduleLeaks.joined(separator: "\n\n"))")
        }
    }
}

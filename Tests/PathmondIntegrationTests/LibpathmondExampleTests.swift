// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import Testing

/// libpathmond as a C programmer meets it: scripts/build-libpathmond's tree (the shared library with its soname,
/// the header, pathmond.pc), docs/examples/pathmond-status.c built against it with
/// `cc pathmond-status.c $(pkg-config --cflags --libs pathmond)`, both under AddressSanitizer and
/// UndefinedBehaviorSanitizer (undefined behaviour aborts), run against the real daemon in a namespace and against
/// a fake pathmond that misbehaves on purpose (Fixtures/hostile_server.py).
@Suite(.serialized) struct LibpathmondExampleTests {
    struct Built: Sendable {
        var example: String
        var libraryDirectory: String
    }

    static let repository = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sanitizers = "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

    /// Built once per test process.
    static let built: Result<Built, CommandError> = Result {
        // Beside the test binaries (swift build's directory), rebuilt by every run: nothing left in /tmp.
        let tree = productsDirectory.appending(path: "libpathmond-tree")
        try? FileManager.default.removeItem(at: tree)
        let script = repository.appending(path: "scripts/build-libpathmond").path
        try runCommand(["LIBPATHMOND_CFLAGS=\(sanitizers)", script, tree.path, "0.test"])
        let multiarch = try runCommand(["cc", "-print-multiarch"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let libraryDirectory = tree.appending(path: "usr/lib/\(multiarch)").path
        let pkgConfig = [
            "PKG_CONFIG_SYSROOT_DIR=\(tree.path)", "PKG_CONFIG_LIBDIR=\(libraryDirectory)/pkgconfig", "pkg-config",
        ]
        let flags = try runCommand(pkgConfig + ["--cflags", "--libs", "pathmond"]).output.split(separator: " ")
            .map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let example = tree.appending(path: "pathmond-status").path
        let source = repository.appending(path: "docs/examples/pathmond-status.c").path
        try runCommand(
            ["cc", "-Wall", "-Wextra", "-Werror"] + sanitizers.split(separator: " ").map(String.init)
                + [source] + flags + ["-o", example])
        return Built(example: example, libraryDirectory: libraryDirectory)
    }.mapError {
        $0 as? CommandError
            ?? CommandError(command: ["build"], result: .init(status: -1, output: "", errorOutput: "\($0)"))
    }

    /// Runs the example with the socket named as pathctl reads it; `timeout` stops a watch that never ends (124).
    static func example(_ arguments: [String], socket: String, timeout: Int = 20) throws -> CommandResult {
        let built = try built.get()
        return try runCommand(
            [
                "PATHMOND_SOCKET=\(socket)", "LD_LIBRARY_PATH=\(built.libraryDirectory)",
                "ASAN_OPTIONS=detect_leaks=1", "timeout", "\(timeout)", built.example,
            ] + arguments, check: false)
    }

    static func expectClean(_ result: CommandResult, _ what: String) {
        #expect(!result.errorOutput.contains("AddressSanitizer"), "\(what): \(result.errorOutput)")
        #expect(!result.errorOutput.contains("LeakSanitizer"), "\(what): \(result.errorOutput)")
        #expect(!result.errorOutput.contains("runtime error"), "\(what): \(result.errorOutput)")
    }

    @Test func thePackagesTreeHasTheSonameAndOnlyTheAPI() throws {
        let built = try Self.built.get()
        let library = built.libraryDirectory + "/libpathmond.so.0"
        let dynamic = try runCommand(["readelf", "-d", library]).output
        #expect(dynamic.contains("Library soname: [libpathmond.so.0]"))
        let symbols = try runCommand(["nm", "-D", "--defined-only", library]).output.split(separator: "\n")
            .compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(symbols.contains("LIBPATHMOND_0"))
        let functions = symbols.filter { $0 != "LIBPATHMOND_0" }
        #expect(functions.count > 40)
        #expect(functions.allSatisfy { $0.hasPrefix("pathmond_") && $0.hasSuffix("@@LIBPATHMOND_0") }, "\(functions)")
    }

    /// wwan0 is cellular in the scenarios' configuration: the path is expensive.
    static func cellularUplink(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wwan0", peer: "wwan0-peer")
        try namespace.ip("address add 198.51.100.10/24 dev wwan0")
        try namespace.ip("route add default via 198.51.100.1 dev wwan0 metric 200")
    }

    @Test func theExamplePrintsTheDaemonsPathAndFollowsIt() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath

        let once = try Self.example([], socket: socket)
        Self.expectClean(once, "GetPath")
        #expect(once.status == 0, "\(once.errorOutput)")
        #expect(once.output == "satisfied expensive=no constrained=no interfaces=eth0\n")

        // Wired is preferred while it lasts: with eth0 gone the path is wwan0's, and cellular is expensive.
        try Self.cellularUplink(scenario.namespace)
        try scenario.namespace.ip("link del eth0")
        _ = try await scenario.client.log.nextPath { $0.isExpensive }
        #expect(
            try Self.example([], socket: socket).output == "satisfied expensive=yes constrained=no interfaces=wwan0\n")

        // The watch, then a kernel change, then the daemon gone: the example prints both paths and ends.
        let watch = Process()
        let output = Pipe()
        let built = try Self.built.get()
        watch.executableURL = URL(filePath: built.example)
        watch.arguments = ["--watch"]
        watch.environment = [
            "PATHMOND_SOCKET": socket, "LD_LIBRARY_PATH": built.libraryDirectory, "ASAN_OPTIONS": "detect_leaks=1",
        ]
        watch.standardOutput = output
        watch.standardError = output
        try watch.run()
        let reader = LineReader(output.fileHandleForReading)
        #expect(try reader.line() == "satisfied expensive=yes constrained=no interfaces=wwan0")
        try scenario.namespace.ip("link set wwan0 down")
        let unsatisfied = try reader.line()
        #expect(
            unsatisfied.hasPrefix("unsatisfied (") && unsatisfied.hasSuffix(" expensive=no constrained=no interfaces="),
            "\(unsatisfied)")
        scenario.daemon.signal(SIGTERM)
        let ending = try reader.line()
        #expect(ending.contains("the watch ended"), "\(ending)")
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 69)
        #expect(!reader.rest().contains("Sanitizer"))
    }

    @Test func withoutADaemonItSaysSo() throws {
        let result = try Self.example([], socket: "/nonexistent/io.pathmond")
        #expect(result.status == 69)
        #expect(result.errorOutput.contains("cannot connect to pathmond: No such file or directory"))
    }

    /// Fixtures/hostile_server.py's scenarios and the error each ends the watch with (strerror's words).
    static let hostile: [String: String] = [
        "nul": "Bad message", "garbage": "Bad message", "non-object": "Bad message", "number": "Bad message",
        "string": "Bad message", "null": "Bad message", "wrong-types": "Bad message", "missing-path": "Bad message",
        "path-not-object": "Bad message", "error": "Remote I/O error", "error-not-string": "Bad message",
        "deep": "Bad message", "over-limit": "Message too long", "endless": "Message too long",
        "duplicate-path": "Bad message", "duplicate-member": "Bad message", "ended": "Connection reset by peer",
        "crash-loop": "Connection reset by peer",
    ]

    @Test(arguments: hostile.keys.sorted() + ["garbage-after-path", "deep-after-path", "endless-after-path"])
    func aHostileServerEndsTheWatchWithAnError(_ scenario: String) throws {
        let work = FileManager.default.temporaryDirectory.appending(path: "libpathmond-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let socket = work.appending(path: "io.pathmond").path
        let server = Process()
        server.executableURL = URL(filePath: "/usr/bin/python3")
        server.arguments = [
            Self.repository.appending(path: "Tests/PathmondIntegrationTests/Fixtures/hostile_server.py").path,
            scenario, socket,
        ]
        let input = Pipe()
        let output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        try server.run()
        defer {
            try? input.fileHandleForWriting.close()
            server.waitUntilExit()
        }
        #expect(try LineReader(output.fileHandleForReading).line() == "listening")

        let result = try Self.example(["--watch"], socket: socket)
        Self.expectClean(result, scenario)
        #expect(result.status == 69, "\(scenario): exit \(result.status)\n\(result.errorOutput)")
        let base = scenario.replacingOccurrences(of: "-after-path", with: "")
        let expected = try #require(Self.hostile[base])
        #expect(result.errorOutput.contains("the watch ended: \(expected)"), "\(scenario): \(result.errorOutput)")
        if scenario.hasSuffix("-after-path") || scenario == "ended" || scenario == "crash-loop" {
            #expect(result.output.hasPrefix("satisfied expensive=yes"), "\(scenario): \(result.output)")
        } else {
            #expect(result.output.isEmpty, "\(scenario): \(result.output)")
        }
    }
}

/// Lines from a pipe, as they come.
final class LineReader {
    private let handle: FileHandle
    private var buffered = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func line() throws -> String {
        while !buffered.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { throw CommandError.missing("a line") }
            buffered.append(chunk)
        }
        let end = buffered.firstIndex(of: UInt8(ascii: "\n"))!  // just found
        let text = String(decoding: buffered[buffered.startIndex..<end], as: UTF8.self)
        buffered = Data(buffered[(end + 1)...])
        return text
    }

    func rest() -> String {
        buffered.append(handle.readDataToEndOfFile())
        return String(decoding: buffered, as: UTF8.self)
    }
}

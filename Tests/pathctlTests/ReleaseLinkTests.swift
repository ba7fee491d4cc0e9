// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The release linker of every program (scripts/link/ld-release) and the tool it runs on the static Swift runtime
/// (scripts/link/unretain-functions), on an archive made here: a function marked "retain" that nothing calls must
/// be dropped by --gc-sections once the mark is off, and what the runtime reads by section must stay.
@Suite(.serialized) struct ReleaseLinkTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let unretain = root.appending(path: "scripts/link/unretain-functions").path
    static let linker = root.appending(path: "scripts/link/ld-release").path

    /// Two public functions and a record in a section of its own, each marked "retain" as swiftc marks a module's
    /// public functions; made into an archive named as the standard library's, in a directory of its own.
    static func fixture() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "release-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
        __attribute__((used, retain)) int uncalled(int x) { return x * 3; }
        __attribute__((used, retain)) int called(int x) { return x + 1; }
        __attribute__((used, retain, section("fixture_records"))) const int record = 7;
        """.write(to: directory.appending(path: "library.c"), atomically: true, encoding: .utf8)
        try "int called(int); int main(void) { return called(1) == 2 ? 0 : 1; }\n"
            .write(to: directory.appending(path: "main.c"), atomically: true, encoding: .utf8)
        for source in ["library", "main"] {
            try run("clang", "-O1", "-ffunction-sections", "-c", "\(source).c", "-o", "\(source).o", in: directory)
        }
        try FileManager.default.createDirectory(
            at: directory.appending(path: "static"), withIntermediateDirectories: true)
        try run("ar", "rcs", "static/libswiftCore.a", "library.o", in: directory)
        return directory
    }

    @discardableResult
    static func run(_ arguments: String..., in directory: URL, expecting status: Int32 = 0) throws -> String {
        try run(arguments, in: directory, expecting: status)
    }

    /// The flags column of `readelf -SW` for the named section ("AXR": allocated, executable, retained).
    static func flags(of section: String, in file: String, directory: URL) throws -> String? {
        let table = try run("readelf", "-SW", file, in: directory)
        for line in table.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let at = words.firstIndex(of: Substring(section)), words.count > at + 6 else { continue }
            return String(words[at + 6])
        }
        return nil
    }

    @Test func takesTheMarkOffFunctionSectionsOnly() throws {
        let directory = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try Self.flags(of: ".text.uncalled", in: "library.o", directory: directory) == "AXR")
        try Self.run(Self.unretain, "static/libswiftCore.a", "unmarked.a", in: directory)
        let out = directory.appending(path: "out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Self.run("ar", "x", "../unmarked.a", "library.o", in: out)
        #expect(try Self.flags(of: ".text.uncalled", in: "out/library.o", directory: directory) == "AX")
        #expect(try Self.flags(of: ".text.called", in: "out/library.o", directory: directory) == "AX")
        #expect(try Self.flags(of: "fixture_records", in: "out/library.o", directory: directory) == "AR")
        // The same archive but the two flag words: one byte each.
        let before = try Data(contentsOf: directory.appending(path: "static/libswiftCore.a"))
        let after = try Data(contentsOf: directory.appending(path: "unmarked.a"))
        #expect(before.count == after.count)
        #expect(zip(before, after).filter { $0 != $1 }.count == 2)
    }

    @Test func saysWhenThereIsNothingToTakeOff() throws {
        let directory = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.run(Self.unretain, "static/libswiftCore.a", "once.a", in: directory)
        try Self.run(Self.unretain, "once.a", "twice.a", in: directory, expecting: 1)
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "twice.a").path))
        let refusal = try Self.run(Self.unretain, "main.c", "no.a", in: directory, expecting: 2)
        #expect(refusal.contains("not an ar archive"))
    }

    @Test func theReleaseLinkerDropsAnUncalledMarkedFunction() throws {
        let directory = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = ["clang", "-fuse-ld=lld", "main.o", "-Lstatic", "-lswiftCore", "-Wl,--gc-sections"]
        // lld alone keeps it: the mark makes it a root.
        try Self.run(link + ["-o", "plain"], in: directory)
        #expect(try Self.run("nm", "plain", in: directory).contains(" uncalled"))
        try Self.run(link + ["--ld-path=\(Self.linker)", "-o", "released"], in: directory)
        let symbols = try Self.run("nm", "released", in: directory)
        #expect(!symbols.contains(" uncalled"))
        #expect(symbols.contains(" called"))
        #expect(try Self.flags(of: "fixture_records", in: "released", directory: directory) != nil)
        try Self.run("./released", in: directory)
    }

    @discardableResult
    static func run(_ arguments: [String], in directory: URL, expecting status: Int32 = 0) throws -> String {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == status, "\(arguments.joined(separator: " ")): \(text)")
        return text
    }
}

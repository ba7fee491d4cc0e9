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
        // A member of odd size first (the next one starts after a padding byte) and a name too long for the
        // member header (it goes in the archive's name table), as real archives have.
        try "odd".write(to: directory.appending(path: "odd.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: directory.appending(path: "library.o"), to: directory.appending(path: Self.member))
        try run("ar", "rcs", "static/libswiftCore.a", "odd.txt", Self.member, in: directory)
        return directory
    }

    /// The object's name in the fixture archive.
    static let member = "a-library-member-with-a-long-name.o"

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
        try Self.run("ar", "x", "../unmarked.a", Self.member, in: out)
        let object = "out/" + Self.member
        #expect(try Self.flags(of: ".text.uncalled", in: object, directory: directory) == "AX")
        #expect(try Self.flags(of: ".text.called", in: object, directory: directory) == "AX")
        #expect(try Self.flags(of: "fixture_records", in: object, directory: directory) == "AR")
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
        // Cut inside the object: an error, and nothing written.
        let whole = try Data(contentsOf: directory.appending(path: "static/libswiftCore.a"))
        try whole.prefix(whole.count - 100).write(to: directory.appending(path: "cut.a"))
        let cut = try Self.run(Self.unretain, "cut.a", "out.a", in: directory, expecting: 2)
        #expect(cut.contains("runs past the end"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "out.a").path))
    }

    /// The toolchain's own standard library, the archive every release link hands it: read whole, and the only
    /// bytes that differ are flag words.
    @Test func readsTheToolchainsStandardLibrary() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "release-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let swift = try Self.run("sh", "-c", "readlink -f \"$(command -v swift)\"", in: directory)
        let library = URL(filePath: swift.trimmingCharacters(in: .whitespacesAndNewlines)).deletingLastPathComponent()
            .appending(path: "../lib/swift_static/linux/libswiftCore.a").standardizedFileURL
        try Self.run(Self.unretain, library.path, "unmarked.a", in: directory)
        let before = try Data(contentsOf: library)
        let after = try Data(contentsOf: directory.appending(path: "unmarked.a"))
        #expect(before.count == after.count)
        // SHF_GNU_RETAIN is bit 21: the third byte of a little-endian flag word, 0x20 cleared.
        let differing = zip(before, after).filter { $0 != $1 }
        #expect(differing.count > 1_000)
        #expect(differing.allSatisfy { $0.0 & 0x20 != 0 && $0.1 == $0.0 & ~0x20 })
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

    /// lld run by the script itself, the search path given as `-L DIR`, and an archive the tool cannot read (a
    /// thin one) linked as it is, with a warning.
    @Test func takesTheDirectoryInEitherFormAndFallsBack() throws {
        let directory = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = [Self.linker, "main.o", "-L", "static", "-lswiftCore", "--gc-sections", "-e", "main"]
        try Self.run(link + ["-o", "two-words"], in: directory)
        #expect(!(try Self.run("nm", "two-words", in: directory)).contains(" uncalled"))
        // A thin archive (members named, not held), which lld reads and the tool does not.
        let thin = directory.appending(path: "thin")
        try FileManager.default.createDirectory(at: thin, withIntermediateDirectories: true)
        try Self.run("ar", "rcsT", "thin/libswiftCore.a", Self.member, in: directory)
        let warned = try Self.run(link.map { $0 == "static" ? "thin" : $0 } + ["-o", "as-is"], in: directory)
        #expect(warned.contains("linked as it is"))
        #expect(try Self.run("nm", "as-is", in: directory).contains(" uncalled"))
    }

    /// Unicode's scalar names as the standard library holds them: a table that only `_swift_stdlib_getScalarName`
    /// reads, called from code in an undivided .text section that is always linked, and reached only through the
    /// public getter. Without the getter the release linker drops the function and its table (lld alone keeps
    /// them); with it, both stay and answer.
    @Test func dropsTheScalarNamesUnlessTheirGetterIsLinked() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "release-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appending(path: "static"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let getter = "__asm__(\"$ss7UnicodeO6ScalarV10PropertiesV4nameSSSgvg\")"
        let sources = [
            "names.c": """
            const char scalar_names[4096] = "LATIN CAPITAL LETTER A";
            int _swift_stdlib_getScalarName(int scalar) { return scalar_names[scalar - 65]; }
            void swift_deletedMethodError(void) { __builtin_trap(); }
            """,
            // lumped.c as Swift.o is: its functions in one .text section, but the public getter in a section of
            // its own (named as swiftc names it), which --gc-sections can drop.
            "lumped.c": """
            int _swift_stdlib_getScalarName(int);
            int called(int x) { return x + 1; }
            int specialization(int x) { return _swift_stdlib_getScalarName(x); }
            __attribute__((section(".text.$ss7UnicodeO6ScalarV10PropertiesV4nameSSSgvg")))
            int getter(int x) \(getter);
            int getter(int x) { return specialization(x); }
            """,
            "without.c": "int called(int); int main(void) { return called(1) == 2 ? 0 : 1; }",
            "with.c": "int getter(int) \(getter); int main(void) { return getter(65) == 'L' ? 0 : 1; }",
        ]
        for (name, source) in sources {
            try source.write(to: directory.appending(path: name), atomically: true, encoding: .utf8)
            let sections = name == "lumped.c" ? [] : ["-ffunction-sections", "-fdata-sections"]
            let object = name.replacing(".c", with: ".o")
            try Self.run(["clang", "-O1", "-c", name, "-o", object] + sections, in: directory)
        }
        try Self.run("ar", "rcs", "static/libswiftCore.a", "names.o", "lumped.o", in: directory)
        let library = ["-Lstatic", "-lswiftCore", "-Wl,--gc-sections"]
        try Self.run(["clang", "-fuse-ld=lld", "without.o", "-o", "plain"] + library, in: directory)
        #expect(try Self.run("nm", "plain", in: directory).contains(" scalar_names"))
        for program in ["without", "with"] {
            try Self.run(
                ["clang", "-fuse-ld=lld", "--ld-path=\(Self.linker)", "\(program).o", "-o", program] + library,
                in: directory)
            let symbols = try Self.run("nm", program, in: directory)
            #expect(symbols.contains(" scalar_names") == (program == "with"), "\(program): \(symbols)")
            try Self.run("./\(program)", in: directory)
        }
        // No log left beside the program.
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "with.ld-release.log").path))
    }

    /// The same with the toolchain's own runtime: a Swift program that names a scalar still does, and one that does
    /// not is linked without the names' tables.
    @Test func aSwiftProgramLinkedForReleaseStillNamesScalars() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "release-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let programs = [
            "naming": "print(Unicode.Scalar(UInt32(64 + CommandLine.arguments.count))!.properties.name ?? \"none\")",
            "plain": "print(Unicode.Scalar(UInt32(64 + CommandLine.arguments.count))!.properties.isAlphabetic)",
        ]
        for (name, source) in programs {
            try source.write(to: directory.appending(path: "\(name).swift"), atomically: true, encoding: .utf8)
            try Self.run(
                "swiftc", "-O", "-static-stdlib", "\(name).swift", "-o", name, "-use-ld=lld", "-Xclang-linker",
                "--ld-path=\(Self.linker)", "-Xlinker", "--gc-sections", in: directory)
        }
        #expect(try Self.run("./naming", in: directory) == "LATIN CAPITAL LETTER A\n")
        #expect(try Self.run("./plain", in: directory) == "true\n")
        #expect(try Self.run("nm", "naming", in: directory).contains("_swift_stdlib_names"))
        #expect(!(try Self.run("nm", "plain", in: directory)).contains("_swift_stdlib_names"))
    }

    /// The command line without the runtime's look at /proc/self/maps (`Sources/CProgramArguments/arguments.c`): a
    /// program linked statically with that object reads its arguments from argv as glibc gave them, also where /proc
    /// is an empty tmpfs, and links none of the runtime's argv grabber; linked without it, the runtime's own way finds
    /// none there (so the object is what makes the difference, and the day the runtime stops looking, this says so).
    @Test func aProgramWithTheArgumentsObjectReadsArgvWithoutProc() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "release-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = Self.root.appending(path: "Sources/CProgramArguments")
        try #"print(CommandLine.arguments.dropFirst().joined(separator: "|"))"#
            .write(to: directory.appending(path: "echo.swift"), atomically: true, encoding: .utf8)
        try Self.run(
            "clang", "-O2", "-c", arguments.appending(path: "arguments.c").path, "-I",
            arguments.appending(path: "include").path, "-o", "arguments.o", in: directory)
        for (program, objects) in [("with", ["arguments.o"]), ("without", [])] {
            try Self.run(
                ["swiftc", "-O", "-static-stdlib", "echo.swift"] + objects + ["-o", program, "-use-ld=lld"],
                in: directory)
        }
        #expect(!(try Self.run("nm", "with", in: directory)).contains("argvGrabber"))
        #expect(try Self.run("nm", "without", in: directory).contains("argvGrabber"))
        for program in ["with", "without"] {
            #expect(try Self.run("./\(program)", "one", "two three", in: directory) == "one|two three\n")
            let withoutProc = try Self.run(
                "unshare", "--mount", "sh", "-c", "mount -t tmpfs none /proc && exec ./\(program) one 'two three'",
                in: directory)
            #expect(withoutProc == (program == "with" ? "one|two three\n" : "\n"), "\(program)")
        }
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

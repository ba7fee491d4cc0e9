// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// docs/architecture.md kept true: every target of Package.swift is named in its "Modules" section, and every
/// thread the shipped code starts (its name, and the file that starts it) in its "Threads" section. A new module or
/// thread fails here until the page says what it is.
@Suite struct ArchitecturePageTests {
    /// The repository's root: this file is Tests/pathmondTests/ArchitecturePageTests.swift.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func namesEveryTargetOfTheManifest() throws {
        let page = try ArchitecturePage(markdown: Self.read("docs/architecture.md"))
        let targets = try ArchitecturePage.targets(inManifest: Self.read("Package.swift"))
        // A manifest read as having no targets would pass every page: the parse must find the ones known today.
        #expect(targets.isSuperset(of: ["PathModel", "Netlink", "SDEvent", "pathmond", "pathctl", "PathmondGIO"]))
        let missing = page.unnamedModules(targets)
        #expect(
            missing.isEmpty, "targets of Package.swift that docs/architecture.md's Modules does not name: \(missing)")
    }

    @Test func namesEveryThreadTheSourcesStart() throws {
        let page = try ArchitecturePage(markdown: Self.read("docs/architecture.md"))
        let sources = try Self.sourceFiles()
        let threads = ArchitecturePage.threads(in: sources)
        #expect(threads.names.isSuperset(of: ["pathmond-policy", "pathmond-state"]))
        #expect(threads.files.contains("Sources/pathmond/History/StateWriterService.swift"))
        let missingNames = page.unnamedThreads(threads.names)
        #expect(missingNames.isEmpty, "threads docs/architecture.md's Threads does not name: \(missingNames)")
        let missingFiles = page.unnamedThreads(threads.files)
        #expect(missingFiles.isEmpty, "files that start threads and are not in the Threads section: \(missingFiles)")
    }

    /// The checks find what a page leaves out: a target, a thread's name and the file that starts it.
    @Test func findsWhatThePageLeavesOut() throws {
        let page = try ArchitecturePage(
            markdown: """
                # Page
                ## Threads
                `worker-a`, started in `Sources/A/A.swift`.
                ## Modules
                - `A`: the one module.
                ## Other
                `B`, `worker-b` and `Sources/B/B.swift`, named outside their sections.
                """)
        let manifest = """
            .target(name: "A"),
            .executableTarget(
                name: "B", dependencies: ["A"]),
            .testTarget(name: "BTests", dependencies: [.product(name: "Logging", package: "swift-log")]),
            """
        let targets = ArchitecturePage.targets(inManifest: manifest)
        #expect(targets == ["A", "B", "BTests"])
        #expect(page.unnamedModules(targets) == ["B", "BTests"])
        let threads = ArchitecturePage.threads(in: [
            ("Sources/A/A.swift", #"let loop = try SDEventLoop.startedOnNewThread(name: "worker-a")"#),
            ("Sources/B/B.swift", #"_ = pathmond_set_thread_name("worker-b")"#),
            ("Sources/C/C.swift", "pthread_create(&thread, nil, body, context)"),
            ("Sources/D/D.swift", "let task = Task { await work() }"),
            ("Sources/E/E.swift", "let quiet = 1"),
        ])
        #expect(threads.names == ["worker-a", "worker-b"])
        #expect(threads.files == ["Sources/A/A.swift", "Sources/B/B.swift", "Sources/C/C.swift", "Sources/D/D.swift"])
        #expect(page.unnamedThreads(threads.names) == ["worker-b"])
        #expect(
            page.unnamedThreads(threads.files) == ["Sources/B/B.swift", "Sources/C/C.swift", "Sources/D/D.swift"])
    }

    private static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    /// Every Swift and C file under Sources/, by its path from the root.
    private static func sourceFiles() throws -> [(path: String, text: String)] {
        let sources = root.appending(path: "Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let base = sources.standardizedFileURL.path(percentEncoded: false)
        let prefix = base.hasSuffix("/") ? base : base + "/"
        var found: [(path: String, text: String)] = []
        for case let url as URL in files where ["swift", "c", "h"].contains(url.pathExtension) {
            let full = url.standardizedFileURL.path(percentEncoded: false)
            try #require(full.hasPrefix(prefix), "\(full) is not under \(prefix)")
            found.append(("Sources/" + full.dropFirst(prefix.count), try String(contentsOf: url, encoding: .utf8)))
        }
        #expect(found.count > 100, "Sources/ read as \(found.count) files")
        return found
    }
}

/// docs/architecture.md's sections, and what the code says they must name.
struct ArchitecturePage {
    let threads: Substring
    let modules: Substring

    init(markdown: String) throws {
        threads = try #require(Self.section("Threads", of: markdown), "no '## Threads' section")
        modules = try #require(Self.section("Modules", of: markdown), "no '## Modules' section")
    }

    /// The text under `## title`, up to the next heading of that level.
    static func section(_ title: String, of markdown: String) -> Substring? {
        guard let heading = markdown.firstRange(of: "\n## \(title)\n") else { return nil }
        let rest = markdown[heading.upperBound...]
        return rest[..<(rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    /// The targets whose names the Modules section leaves out; a name counts in backticks only (`JSON` is not
    /// named by `JSONTests`).
    func unnamedModules(_ targets: Set<String>) -> [String] {
        targets.filter { !modules.contains("`\($0)`") }.sorted()
    }

    /// The thread names or files the Threads section leaves out (in backticks, as for modules).
    func unnamedThreads(_ names: Set<String>) -> [String] {
        names.filter { !threads.contains("`\($0)`") }.sorted()
    }

    /// Every target a manifest declares, of whatever kind.
    static func targets(inManifest manifest: String) -> Set<String> {
        // .target, .executableTarget, .testTarget, .binaryTarget, .systemLibrary, .macro, .plugin.
        let declaration = #/\.(?:\w*[tT]arget|systemLibrary|macro|plugin)\(\s*name:\s*"([^"]+)"/#
        return Set(manifest.matches(of: declaration).map { String($0.output.1) })
    }

    /// Names given to threads and queues: an sd-event loop's thread, a thread's own name, a Dispatch queue's label.
    private static var threadNames: [Regex<(Substring, Substring)>] {
        [
            #/startedOnNewThread\(name:\s*"([^"]+)"/#,
            #/set_thread_name\(\s*"([^"]+)"/#,
            #/pthread_setname_np\([^,]*,\s*"([^"]+)"/#,
            #/PR_SET_NAME,\s*"([^"]+)"/#,
            #/DispatchQueue\(label:\s*"([^"]+)"/#,
        ]
    }

    /// Whatever starts a thread, or hands work to threads not ours: pthreads, sd-event loops on threads of their
    /// own, Dispatch queues, Swift concurrency's tasks, GLib's threads.
    private static var threadStarts: [Regex<Substring>] {
        [
            #/pthread_create\(/#, #/startedOnNewThread\(/#, #/DispatchQueue\(/#, #/DispatchQueue\.global/#,
            #/queue:\s*\.global\(/#, #/dispatchMain\(/#, #/\bThread\s*\{/#, #/\bTask\s*\{/#, #/\bTask\.detached/#,
            #/g_thread_new/#, #/g_task_run_in_thread/#,
        ]
    }

    /// The thread names given in `files`, and the files that start or name threads.
    static func threads(in files: [(path: String, text: String)]) -> (names: Set<String>, files: Set<String>) {
        var names: Set<String> = []
        var starters: Set<String> = []
        for (path, text) in files {
            let named = threadNames.flatMap { text.matches(of: $0).map { String($0.output.1) } }
            names.formUnion(named)
            if !named.isEmpty || threadStarts.contains(where: { text.contains($0) }) { starters.insert(path) }
        }
        return (names, starters)
    }
}

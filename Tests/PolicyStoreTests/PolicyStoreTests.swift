// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import StateFiles
import Testing

@testable import PolicyStore

@Suite struct PolicyStoreTests {
    let directory: TestDirectory
    let store: PolicyStore

    init() throws {
        directory = try TestDirectory()
        store = PolicyStore(stateDirectory: directory.path)
    }

    @Test func missingFileIsAnEmptyPolicy() throws {
        #expect(try store.load() == (Policy(), nil))
        let nowhere = PolicyStore(stateDirectory: directory.file("not/yet"))
        #expect(try nowhere.load() == (Policy(), nil))
    }

    @Test func saveWritesExactlyTheFileAndNothingElse() throws {
        let policy = awkwardPolicy()
        #expect(try store.save(policy) == nil)
        #expect(directory.names() == ["policy.json"])
        #expect(contents(of: store.path) == PolicyFile.encode(policy))
        #expect(mode(of: store.path) == 0o644)
        #expect(try store.load() == (policy, nil))

        let smaller = Policy(networks: [NetworkKey("wifi:Home")!: NetworkPolicy(isConstrained: true)])
        try store.save(smaller)
        #expect(directory.names() == ["policy.json"])
        #expect(try store.load() == (smaller, nil))
    }

    @Test func saveCreatesTheMissingStateDirectory() throws {
        let nested = PolicyStore(stateDirectory: directory.file("var/lib/pathmond"))
        try nested.save(awkwardPolicy())
        #expect(mode(of: directory.file("var/lib/pathmond")) == 0o755)
        #expect(try nested.load() == (awkwardPolicy(), nil))
    }

    @Test func leftoverTemporaryFilesAreRemovedAtLoad() throws {
        try store.save(awkwardPolicy())
        try write(Array("{\"version\": 1, \"netw".utf8), to: directory.file("policy.json.tmp-crashed"))
        #expect(try store.load() == (awkwardPolicy(), nil))
        #expect(directory.names() == ["policy.json"])
    }

    static let damagedFiles: [(name: String, text: String, recovered: Int)] = [
        ("garbage", "\u{1}\u{2}this is not JSON\u{ff}", 0),
        (
            "truncated", #"{"version": 1, "networks": [{"key": "wifi:A", "constrained": true}, {"key": "wifi:B", "con"#,
            1
        ),
        ("wrong types", #"{"version": "one", "networks": {"key": "wifi:A"}}"#, 0),
        (
            "one bad entry",
            #"{"version": 1, "networks": [{"key": "wifi:A", "constrained": true}, {"key": 7}, "#
                + #"{"key": "wifi:C", "expensive": false}]}"#, 2
        ),
    ]

    @Test(arguments: damagedFiles)
    func damagedFileIsKeptAsideAndWhatCanBeIsRecovered(name: String, text: String, recovered: Int) throws {
        let original = Array(text.utf8)
        try write(original, to: store.path)
        let (policy, report) = try store.load()
        let aside = try #require(report?.keptAsidePath, "\(name)")
        #expect(report?.problem == .damaged)
        #expect(report?.recoveredNetworks == recovered)
        #expect(policy.networks.count == recovered)
        #expect(aside.hasPrefix(directory.file("policy.json.corrupt-")))
        #expect(contents(of: aside) == original)
        #expect(!FileSystem.exists(store.path))
        #expect(report?.isReadOnly == false)
        #expect(report?.description.contains("kept aside as \(aside)") == true)

        // The salvaged policy is saved, and the next load is clean.
        try store.save(policy)
        #expect(try store.load() == (policy, nil))
    }

    @Test func asideFilesAreNeverOverwritten() throws {
        var asides: Set<String> = []
        for round in 0..<3 {
            try write(Array("damaged \(round)".utf8), to: store.path)
            let aside = try #require(try store.load().report?.keptAsidePath)
            asides.insert(aside)
        }
        #expect(asides.count == 3)
        #expect(Set(asides.compactMap { contents(of: $0) }).count == 3)
    }

    @Test func unreadableFileIsKeptAside() throws {
        // Tests run as root, so permissions cannot stop a read; a directory in the file's place does.
        #expect(mkdir(store.path, 0o755) == 0)
        try write(Array("inside".utf8), to: store.path + "/note")
        let (policy, report) = try store.load()
        #expect(policy == Policy())
        #expect(report?.problem == .notRegularFile)
        let aside = try #require(report?.keptAsidePath)
        #expect(contents(of: aside + "/note") == Array("inside".utf8))
        try store.save(awkwardPolicy())
        #expect(try store.load() == (awkwardPolicy(), nil))
    }

    @Test func newerVersionIsLeftAloneAndSavingRefused() throws {
        let newer = Array(#"{"version": 2, "networks": [{"key": "wifi:A", "constrained": true}], "profiles": {}}"#.utf8)
        try write(newer, to: store.path)
        let (policy, report) = try store.load()
        #expect(policy == Policy())
        #expect(report?.problem == .newerVersion(2))
        #expect(report?.isReadOnly == true)
        #expect(report?.keptAsidePath == nil)
        #expect(throws: PolicyStoreError.self) { try store.save(awkwardPolicy()) }
        #expect(contents(of: store.path) == newer)
        #expect(directory.names() == ["policy.json"])

        // Moved away by the administrator: saving works again without a restart.
        #expect(rename(store.path, directory.file("policy.json.v2")) == 0)
        try store.save(awkwardPolicy())
        #expect(try store.load() == (awkwardPolicy(), nil))
    }

    @Test func damagedFileFoundAtSaveIsKeptAsideFirst() throws {
        try write(Array("hand-edited badly".utf8), to: store.path)
        let report = try store.save(awkwardPolicy())
        let aside = try #require(report?.keptAsidePath)
        #expect(contents(of: aside) == Array("hand-edited badly".utf8))
        #expect(try store.load() == (awkwardPolicy(), nil))
    }

    @Test func stateDirectoryThatIsAFileIsAnError() throws {
        try write([], to: directory.file("plain"))
        let broken = PolicyStore(stateDirectory: directory.file("plain"))
        #expect(throws: PolicyStoreError.system(.listDirectory, path: directory.file("plain"), errno: ENOTDIR)) {
            try broken.load()
        }
        #expect(throws: PolicyStoreError.self) { try broken.save(Policy()) }
    }

    @Test func errorsReadAsSentences() {
        #expect(
            PolicyStoreError.system(.fsync, path: "/var/lib/pathmond/policy.json.tmp-x", errno: EIO).description
                == "could not fsync /var/lib/pathmond/policy.json.tmp-x: Input/output error (errno 5)")
        #expect(PolicyStoreError.system(.rename, path: "/a", errno: EXDEV).errno == EXDEV)
    }

    @Test(.enabled(if: canMakeImmutable(), "needs chattr +i (root with CAP_LINUX_IMMUTABLE on ext4 or similar)"))
    func damagedFileThatCannotBeKeptAsideIsNeverOverwritten() throws {
        let original = Array(#"{"version": 1, "networks": [{"key": "wifi:A", "constrained": true}, "#.utf8)
        try write(original, to: store.path)
        #expect(run(["/usr/bin/chattr", "+i", directory.path]) == 0)
        defer { _ = run(["/usr/bin/chattr", "-i", directory.path]) }
        let (policy, report) = try store.load()
        #expect(policy == Policy(networks: [NetworkKey("wifi:A")!: NetworkPolicy(isConstrained: true)]))
        #expect(report?.isReadOnly == true)
        #expect(report?.keepAsideFailure?.errno == EPERM)
        #expect(throws: PolicyStoreError.self) { try store.save(Policy()) }
        #expect(contents(of: store.path) == original)

        #expect(run(["/usr/bin/chattr", "-i", directory.path]) == 0)
        let aside = try #require(try store.save(policy)?.keptAsidePath)
        #expect(contents(of: aside) == original)
    }
}

/// The permission bits of a file.
func mode(of path: String) -> mode_t? {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
}

/// Whether this machine lets the tests make a directory immutable (root, chattr, a file system that supports it).
func canMakeImmutable() -> Bool {
    guard let probe = try? TestDirectory(), run(["/usr/bin/chattr", "+i", probe.path]) == 0 else { return false }
    return run(["/usr/bin/chattr", "-i", probe.path]) == 0
}

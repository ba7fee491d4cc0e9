// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

@testable import PolicyStore

/// Hostile policy files a broken disk or a careless root could leave (issue 10): each is set aside unread and
/// reported like a damaged file, the store starts empty, and the next save writes a fresh regular file.
@Suite struct StateFileSafetyTests {
    let directory: TestDirectory
    let store: PolicyStore

    init() throws {
        directory = try TestDirectory()
        store = PolicyStore(stateDirectory: directory.path)
    }

    /// Before, opening the FIFO blocked the daemon for ever, before it served anyone.
    @Test func aFIFOIsSetAsideWithoutBlocking() throws {
        #expect(mkfifo(store.path, 0o644) == 0)
        try expectSetAside(problem: .notRegularFile, reasonContaining: "a FIFO")
    }

    /// Before, the daemon read /dev/zero until memory ran out (1.58 GB in 3 s).
    @Test func aSymbolicLinkToDevZeroIsSetAsideUnread() throws {
        #expect(symlink("/dev/zero", store.path) == 0)
        try expectSetAside(problem: .notRegularFile, reasonContaining: "symbolic link")
    }

    /// Before, the networks of the file the link pointed at were served to every user.
    @Test func aSymbolicLinkToAnotherPolicyIsNotRead() throws {
        let secret = directory.file("root-only.json")
        var policy = Policy()
        policy[NetworkKey("wifi:Secret")!] = NetworkPolicy(isConstrained: true)
        try write(PolicyFile.encode(policy), to: secret)
        #expect(symlink(secret, store.path) == 0)
        try expectSetAside(problem: .notRegularFile, reasonContaining: "symbolic link")
        // The file the link named is untouched.
        #expect(contents(of: secret) == PolicyFile.encode(policy))
    }

    @Test func aDirectoryIsSetAside() throws {
        #expect(mkdir(store.path, 0o755) == 0)
        try expectSetAside(problem: .notRegularFile, reasonContaining: "a directory")
    }

    @Test func anOversizeFileIsSetAsideUnread() throws {
        // A valid file, padded with whitespace past the bound: only its size is wrong.
        var bytes = PolicyFile.encode(Policy(networks: [NetworkKey("wifi:Home")!: NetworkPolicy(isConstrained: true)]))
        bytes += [UInt8](repeating: 0x20, count: PolicyStore.maximumFileSize)
        try write(bytes, to: store.path)
        try expectSetAside(problem: .tooLarge, reasonContaining: "more than the \(PolicyStore.maximumFileSize)")
    }

    @Test func aFileAtTheBoundIsStillRead() throws {
        var policy = Policy()
        policy[NetworkKey("wifi:Home")!] = NetworkPolicy(isConstrained: true)
        var bytes = PolicyFile.encode(policy)
        bytes += [UInt8](repeating: 0x20, count: PolicyStore.maximumFileSize - bytes.count)
        try write(bytes, to: store.path)
        #expect(try store.load() == (policy, nil))
    }

    private func expectSetAside(problem: LoadReport.Problem, reasonContaining text: String) throws {
        let (policy, report) = try store.load()
        #expect(policy == Policy())
        let loaded = try #require(report)
        #expect(loaded.problem == problem)
        #expect(loaded.reason.contains(text), "\(loaded.reason)")
        let aside = try #require(loaded.keptAsidePath, "\(loaded)")
        #expect(aside.hasPrefix(directory.file("policy.json.corrupt-")))
        var status = stat()
        #expect(lstat(store.path, &status) != 0 && errno == ENOENT)
        // The daemon goes on: a save writes a fresh regular file, which then loads whole.
        let fresh = Policy(networks: [NetworkKey("wifi:Fresh")!: NetworkPolicy(isConstrained: true)])
        #expect(try store.save(fresh) == nil)
        #expect(lstat(store.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
        #expect(try store.load() == (fresh, nil))
    }
}

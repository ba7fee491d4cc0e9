// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

@testable import PolicyStore

/// kill -9 during saves, for real: a writer process saves policies in a loop and is killed at a random moment;
/// after every kill the policy file must load whole, as one of the policies the writer saved.
///
/// The writer is this test binary itself, re-run with a filter that selects `writerLoop` and an environment
/// variable naming the directory; the package cannot hold a helper executable for tests alone.
@Suite struct KillDuringWriteTests {
    static let directoryVariable = "PATHMOND_POLICY_WRITER_DIR"
    static let iterations = 50

    /// Policies of different sizes, so that a torn or mixed file could not pass for a whole one.
    static let policies: [Policy] = (0..<5).map { generation in
        var policy = Policy()
        for index in 0..<(generation * 37 + 1) {
            let ssid = Array("net \(generation)-\(index) \"%\"".utf8) + [UInt8(index % 256)]
            policy[NetworkIdentity.wifi(ssid: ssid).key] = NetworkPolicy(
                isConstrained: index % 2 == 0, isExpensive: index % 3 == 0 ? nil : generation % 2 == 0)
        }
        return policy
    }

    @Test func killedWriterAlwaysLeavesAWholePolicy() throws {
        let directory = try TestDirectory()
        let store = PolicyStore(stateDirectory: directory.path)
        let executable = try #require(executablePath())
        var generator = SystemRandomNumberGenerator()
        var killedMidWrite = 0
        var seen: Set<Int> = []
        for iteration in 0..<Self.iterations {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            let child = spawn(
                [executable, "--testing-library", "swift-testing", "--filter", "KillDuringWriteTests/writerLoop"],
                environment: [Self.directoryVariable: directory.path], extraFD: ends[1])
            close(ends[1])
            defer { close(ends[0]) }
            let pid = try #require(child)
            // The writer says once that it has saved and is looping; then the kill lands at a random point.
            var ready: UInt8 = 0
            let started = read(ends[0], &ready, 1) == 1
            if started { usleep(UInt32.random(in: 1_000...30_000, using: &generator)) }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            try #require(started, "the writer stopped before saving (iteration \(iteration), status \(status))")
            #expect(status & 0x7f == SIGKILL, "the writer ended by itself (iteration \(iteration))")

            if directory.names().contains(where: { $0.hasPrefix("policy.json.tmp-") }) { killedMidWrite += 1 }
            let (policy, report) = try store.load()
            #expect(report == nil, "iteration \(iteration): \(report.map { "\($0)" } ?? "")")
            let generation = Self.policies.firstIndex(of: policy)
            #expect(generation != nil, "iteration \(iteration): a policy the writer never saved")
            seen.formUnion(generation.map { [$0] } ?? [])
            #expect(directory.names() == ["policy.json"])
        }
        print("kill -9: \(Self.iterations) kills, \(killedMidWrite) mid-write, generations seen \(seen.sorted())")
        #expect(seen.count > 1, "the kills never caught the writer between two different saves")
    }

    /// The writer: runs only when re-run by the test above; otherwise passes at once.
    @Test func writerLoop() throws {
        guard let path = getenv(Self.directoryVariable).map({ String(cString: $0) }) else { return }
        let store = PolicyStore(stateDirectory: path)
        let (start, report) = try store.load()
        guard report == nil else { exit(3) }
        let parent = getppid()
        var generation = (Self.policies.firstIndex(of: start) ?? 0) + 1
        var announced = false
        // Until killed; a writer whose parent died stops by itself rather than spin forever.
        while getppid() == parent {
            try store.save(Self.policies[generation % Self.policies.count])
            generation += 1
            if !announced {
                var byte = UInt8(ascii: "r")
                announced = write(3, &byte, 1) == 1
                close(3)
            }
        }
    }
}

/// The running test binary, read from /proc so that it is the same file whatever the working directory.
func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// Where the binaries under test are, and what extra the daemon is started with: shared by every namespaced bench.
struct DaemonOptions: ParsableArguments {
    @Option(help: "The pathmond binary to measure (default: the one next to pathmond-bench).")
    var pathmond: String?

    @Option(help: "The pathctl binary (default: the one next to pathmond-bench).")
    var pathctl: String?

    @Option(
        name: .customLong("daemon-arg"), parsing: .unconditionalSingleValue,
        help: "An extra argument for pathmond (repeatable), e.g. --daemon-arg=--log-level=debug.")
    var daemonArguments: [String] = []

    /// A binary next to this one, as `swift build` leaves them.
    static func sibling(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return name }
        let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return directory.joined(separator: "/") + "/" + name
    }

    var pathmondBinary: String { pathmond ?? Self.sibling("pathmond") }
    var pathctlBinary: String { pathctl ?? Self.sibling("pathctl") }

    func check() throws(BenchError) {
        guard access(pathmondBinary, X_OK) == 0 else {
            throw .setup(
                "no pathmond at \(pathmondBinary): build it (swift build -c release --product pathmond) or pass --pathmond"
            )
        }
    }
}

/// pathmond running in the bench's namespace, serving a socket in the work directory, its output in a log file.
final class DaemonProcess {
    let child: Child
    let socketPath: String
    let logPath: String

    init(options: DaemonOptions, namespace: BenchNamespace, directory: String) throws(BenchError) {
        try options.check()
        socketPath = directory + "/io.pathmond"
        logPath = directory + "/pathmond.log"
        // The host's resolver and system bus stay out: neither is what is measured.
        let arguments =
            namespace.exec + [
                options.pathmondBinary, "--socket", socketPath, "--state-dir", directory + "/state",
                "--resolv-conf", directory + "/resolv.conf", "--resolved-dir", directory + "/resolve",
                "--no-system-bus",
            ] + options.daemonArguments
        child = try Child(arguments, output: .file(logPath), error: .file(logPath))
        try awaitServing()
    }

    /// `ip netns exec` execs the daemon in place, so the child's pid is pathmond's.
    var pid: pid_t { child.pid }

    /// Waits until a GetPath is answered (the first dump is then applied).
    private func awaitServing() throws(BenchError) {
        let deadline = monotonicNanoseconds() + 30_000_000_000
        while monotonicNanoseconds() < deadline {
            guard child.isRunning else {
                throw .setup("pathmond exited before serving; its log:\n\(tail(20))")
            }
            if let connection = try? VarlinkSocket(path: socketPath),
                (try? connection.call(VarlinkSocket.getPathCall, timeoutMilliseconds: 2000)) != nil
            {
                return
            }
            usleep(20_000)
        }
        throw .setup("pathmond did not answer on \(socketPath) within 30 s; its log:\n\(tail(20))")
    }

    /// The log's line count, for "lines per minute".
    var logLines: [Substring] {
        readFile(logPath).split(separator: "\n")
    }

    func tail(_ count: Int) -> String {
        logLines.suffix(count).joined(separator: "\n")
    }

    func stop() {
        child.stop()
    }
}

/// A whole (small) file as text; empty if unreadable.
func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

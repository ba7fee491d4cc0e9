// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// `perf stat -e context-switches -p PID` over a fixed time, as a second opinion beside /proc's counts. perf attaches
/// to the threads that exist when it starts.
final class PerfCounter {
    private let child: Child?
    private let output: String

    static var available: Bool {
        let places: [String] = ["/usr/bin/perf", "/usr/local/bin/perf"]
        return places.contains { access($0, X_OK) == 0 }
    }

    init(pid: pid_t, seconds: Int) {
        output = "/tmp/pathmond-bench-perf-\(getpid())-\(pid).csv"
        child = try? Child(
            [
                "perf", "stat", "-x", ",", "-o", output, "-e", "context-switches", "-p", "\(pid)", "--", "sleep",
                "\(seconds)",
            ], output: .null, error: .null)
    }

    /// Waits for perf to finish; the count, or nil if perf could not count.
    func switches() -> Int? {
        guard let child else { return nil }
        child.wait()
        defer { unlink(output) }
        for line in readFile(output).split(separator: "\n") where line.contains("context-switches") {
            let value = line.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
            // perf says "<not counted>" for a process that never ran while it watched: no switch at all.
            return value == "<not counted>" ? 0 : Int(value)
        }
        return nil
    }
}

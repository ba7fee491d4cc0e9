// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// What /proc says about one process at one moment: CPU time, context switches per thread, memory, threads.
struct ProcessSnapshot {
    struct Task {
        /// The thread's name (/proc/PID/task/TID/comm): pathmond names its threads.
        var name: String
        /// Time on CPU, from /proc/PID/task/TID/schedstat (nanoseconds, exact).
        var runtime: UInt64
        var voluntarySwitches: UInt64
        var involuntarySwitches: UInt64
    }

    var tasks: [Int: Task] = [:]
    /// utime + stime from /proc/PID/stat, in clock ticks: includes threads that have exited, at 10 ms resolution.
    var cpuTicks: UInt64 = 0
    var residentKiB = 0
    var peakResidentKiB = 0
    var anonymousKiB = 0
    var fileKiB = 0
    var threads = 0

    init?(pid: pid_t) {
        let stat = readFile("/proc/\(pid)/stat")
        // Fields after the command name, which may hold spaces: state is field 3, utime 14 and stime 15.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        cpuTicks = user + system
        let status = Self.fields(readFile("/proc/\(pid)/status"))
        residentKiB = status["VmRSS"] ?? 0
        peakResidentKiB = status["VmHWM"] ?? 0
        anonymousKiB = status["RssAnon"] ?? 0
        fileKiB = status["RssFile"] ?? 0
        threads = status["Threads"] ?? 0
        for tid in Self.taskIDs(pid) {
            let taskStatus = Self.fields(readFile("/proc/\(pid)/task/\(tid)/status"))
            let runtime = readFile("/proc/\(pid)/task/\(tid)/schedstat").split(separator: " ").first.flatMap {
                UInt64($0)
            }
            var name = readFile("/proc/\(pid)/task/\(tid)/comm")
            if name.hasSuffix("\n") { name.removeLast() }
            tasks[tid] = Task(
                name: name, runtime: runtime ?? 0,
                voluntarySwitches: UInt64(taskStatus["voluntary_ctxt_switches"] ?? 0),
                involuntarySwitches: UInt64(taskStatus["nonvoluntary_ctxt_switches"] ?? 0))
        }
    }

    private static func fields(_ text: String) -> [String: Int] {
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            values[String(line[..<colon])] = value
        }
        return values
    }

    private static func taskIDs(_ pid: pid_t) -> [Int] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var ids: [Int] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let id = Int(name) { ids.append(id) }
        }
        return ids
    }
}

/// What a process did between two snapshots.
struct ProcessDelta {
    /// CPU time in nanoseconds: exact from schedstat when the same threads lived throughout, else from ticks.
    var cpuNanoseconds: UInt64
    var voluntarySwitches: UInt64
    var involuntarySwitches: UInt64
    /// Threads that exited in between (their switches are lost; their CPU time is in the tick figure).
    var threadsExited: Int
    var threadsStarted: Int

    init(from start: ProcessSnapshot, to end: ProcessSnapshot) {
        let exited = start.tasks.keys.filter { end.tasks[$0] == nil }.count
        threadsExited = exited
        threadsStarted = end.tasks.keys.filter { start.tasks[$0] == nil }.count
        var runtime: UInt64 = 0
        var voluntary: UInt64 = 0
        var involuntary: UInt64 = 0
        for (tid, task) in end.tasks {
            let before = start.tasks[tid]
            runtime += task.runtime - min(task.runtime, before?.runtime ?? 0)
            voluntary += task.voluntarySwitches - min(task.voluntarySwitches, before?.voluntarySwitches ?? 0)
            involuntary += task.involuntarySwitches - min(task.involuntarySwitches, before?.involuntarySwitches ?? 0)
        }
        let ticks =
            (end.cpuTicks - min(end.cpuTicks, start.cpuTicks)) * 1_000_000_000 / UInt64(sysconf(Int32(_SC_CLK_TCK)))
        // schedstat may read 0 on kernels without it; ticks then, as when threads came and went.
        cpuNanoseconds = exited == 0 && runtime > 0 ? runtime : max(ticks, runtime)
        voluntarySwitches = voluntary
        involuntarySwitches = involuntary
    }

    var switches: UInt64 { voluntarySwitches + involuntarySwitches }

    /// Per thread name, the CPU time and the times the thread went to sleep (voluntary switches: each one that
    /// ended before the next change is a wake-up), for the threads that lived throughout, the process's main
    /// thread (`main`, its id the process's) first, then by CPU time.
    static func byThread(
        from start: ProcessSnapshot, to end: ProcessSnapshot, main: Int
    ) -> [(name: String, cpuNanoseconds: UInt64, sleeps: UInt64, isMain: Bool)] {
        var threads: [String: (cpu: UInt64, sleeps: UInt64, isMain: Bool)] = [:]
        for (tid, task) in end.tasks {
            guard let before = start.tasks[tid] else { continue }
            // The main thread apart: a thread of another name may share its name (a program named as a thread is).
            let name = tid == main ? "" : task.name
            threads[name, default: (0, 0, tid == main)].cpu += task.runtime - min(task.runtime, before.runtime)
            threads[name, default: (0, 0, tid == main)].sleeps +=
                task.voluntarySwitches - min(task.voluntarySwitches, before.voluntarySwitches)
        }
        return threads.map { name, figures in
            let shown = figures.isMain ? end.tasks[main]?.name ?? "main" : name
            return (shown, figures.cpu, figures.sleeps, figures.isMain)
        }.sorted { ($0.isMain ? 1 : 0, $0.cpuNanoseconds) > ($1.isMain ? 1 : 0, $1.cpuNanoseconds) }
    }
}

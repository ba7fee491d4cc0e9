// SPDX-License-Identifier: Apache-2.0
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// A command `pathctl exec` runs: spawned in a process group of its own, so that pausing, continuing and ending it
/// reach everything it started (a shell's children, a compressor in a pipeline), with the signals pathctl ignores
/// set back to their defaults.
final class ChildProcess: Sendable {
    let processID: pid_t

    /// Why the command could not be started (errno).
    struct SpawnError: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }

    init(_ arguments: [String]) throws(SpawnError) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, &argv, environ)
        guard result == 0 else { throw SpawnError(errno: result) }
        processID = pid
    }

    /// Sends `signal` to the command's process group.
    func signalGroup(_ signal: Int32) {
        kill(-processID, signal)
    }

    /// Waits for the command's exit on a thread of its own and reports its status as a shell would: the exit code,
    /// or 128 + N for a signal N.
    func waitInBackground(_ exited: @escaping @Sendable (Int32) -> Void) {
        let pid = processID
        DetachedThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED and WEXITSTATUS are macros Swift cannot call: the low 7 bits are the signal, 0 for an exit.
            let signal = status & 0x7f
            exited(signal == 0 ? (status >> 8) & 0xff : 128 + signal)
        }.start()
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond --dispatcher`, the command line units of earlier packages start the dispatcher with. The dispatcher is
/// its own program now (`pathmond-dispatcher`, as systemd keeps wait-online its own), so that the daemon links
/// neither it nor the client library it follows the path with. An upgrade replaces the unit together with the
/// binaries, but a unit copied into /etc/systemd/system, or a restart between dpkg's unpacking and its
/// daemon-reload, still runs this command line: it becomes the helper, with the same options.
enum DispatcherAlias {
    /// Where the package installs the helper.
    static let installedPath = "/usr/libexec/pathmond/pathmond-dispatcher"

    /// Replaces the process with the helper; returns only by throwing, when it cannot.
    static func exec(_ options: DaemonCommandLine) throws -> Never {
        let program = helperPath()
        var argv = ([program] + arguments(for: options)).map { strdup($0) } + [nil]
        execv(program, &argv)
        let code = errno
        for pointer in argv { free(pointer) }
        throw DaemonExit(status: 1, message: "cannot run \(program): \(String(cString: strerror(code)))")
    }

    /// The helper's command line for the options pathmond was given: those it takes, the rest dropped.
    static func arguments(for options: DaemonCommandLine) -> [String] {
        var arguments = [
            "--socket", options.daemon.socket, "--dispatcher-socket", options.dispatcherSocket,
            "--dispatcher-state-dir", options.dispatcherStateDir, "--log-level", options.logLevel.rawValue,
        ]
        if let config = options.config { arguments += ["--config", config] }
        if let bus = options.daemon.systemBus { arguments += ["--system-bus", bus] }
        return arguments
    }

    /// The helper beside the running binary (a build directory: the tests), else the installed one.
    static func helperPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = executable.lastIndex(of: "/") {
                let beside = String(executable[...slash]) + "pathmond-dispatcher"
                if access(beside, X_OK) == 0 { return beside }
            }
        }
        return installedPath
    }
}

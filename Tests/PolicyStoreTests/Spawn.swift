// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Starts a program with extra environment variables, output discarded, and `extraFD` (if any) as its fd 3.
/// posix_spawn rather than fork: a test process has threads, and only exec is safe in a forked child of one.
func spawn(_ arguments: [String], environment: [String: String] = [:], extraFD: Int32? = nil) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let extraFD { posix_spawn_file_actions_adddup2(&actions, extraFD, 3) }

    var inherited: [String] = []
    var entry = environ
    while let variable = entry.pointee {
        let text = String(decoding: UnsafeRawBufferPointer(start: variable, count: strlen(variable)), as: UTF8.self)
        if !environment.keys.contains(where: { text.hasPrefix($0 + "=") }) { inherited.append(text) }
        entry += 1
    }
    let variables = inherited + environment.map { "\($0.key)=\($0.value)" }

    let argv = arguments.map { strdup($0) } + [nil]
    let envp = variables.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    return posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 ? pid : nil
}

/// Runs a program to completion; its exit status, or nil if it could not start or did not exit normally.
func run(_ arguments: [String]) -> Int32? {
    guard let pid = spawn(arguments) else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
}

// SPDX-License-Identifier: Apache-2.0
import CBenchSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn (the bench does not link Foundation's Process). Its standard output
/// goes to /dev/null, a file, a pipe the bench reads, or the bench's own.
final class Child {
    enum Output {
        case inherit
        case null
        case file(String)
        /// A pipe; its read end is `outputPipe`.
        case pipe
    }

    let pid: pid_t
    let arguments: [String]
    /// The read end of the child's stdout when started with `.pipe`.
    let outputPipe: Int32?
    /// The write end of the child's stdin when started with `pipesInput`.
    let inputPipe: Int32?
    private var status: Int32?

    /// Starts `arguments` (the program is looked up on PATH); stdin is /dev/null, or a pipe the bench writes to
    /// (`inputPipe`) with `pipesInput`.
    init(_ arguments: [String], output: Output = .inherit, error: Output = .inherit, pipesInput: Bool = false)
        throws(BenchError)
    {
        self.arguments = arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputEnds: [Int32] = [-1, -1]
        if pipesInput {
            guard pipe2(&inputEnds, O_CLOEXEC) == 0 else { throw .system("pipe2", errno) }
            posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var pipeEnds: [Int32] = [-1, -1]
        if case .pipe = output {
            guard pipe2(&pipeEnds, O_CLOEXEC) == 0 else { throw .system("pipe2", errno) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        }
        for (fd, redirect) in [(Int32(1), output), (Int32(2), error)] {
            switch redirect {
            case .inherit, .pipe: break
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            }
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer {
            for argument in argv { free(argument) }
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        if inputEnds[0] >= 0 { close(inputEnds[0]) }
        guard result == 0 else {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]) }
            if inputEnds[1] >= 0 { close(inputEnds[1]) }
            throw .system("starting \(arguments[0])", result)
        }
        self.pid = pid
        outputPipe = pipeEnds[0] >= 0 ? pipeEnds[0] : nil
        inputPipe = inputEnds[1] >= 0 ? inputEnds[1] : nil
    }

    deinit {
        if let outputPipe { close(outputPipe) }
        if let inputPipe { close(inputPipe) }
    }

    /// Runs a command to completion and fails unless it exits 0.
    static func run(_ arguments: [String], output: Output = .null) throws(BenchError) {
        let child = try Child(arguments, output: output)
        let status = child.wait()
        guard status == 0 else {
            throw .setup("`\(arguments.joined(separator: " "))` exited with status \(status)")
        }
    }

    /// Waits for the exit; the exit code, or 128 + the signal that killed it.
    @discardableResult
    func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        status = code
        return code
    }

    /// The exit code if the child has exited, without waiting.
    func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return status
    }

    var isRunning: Bool { poll() == nil }

    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// SIGTERM, then SIGKILL if it is still there after `grace` seconds.
    func stop(grace: Double = 5) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicNanoseconds() + UInt64(grace * 1e9)
        while isRunning && monotonicNanoseconds() < deadline { usleep(10_000) }
        if isRunning { kill(pid, SIGKILL) }
        wait()
    }

    /// Reads what the child wrote to its pipe until end of file (the child exited or closed it).
    func readAllOutput() -> String {
        guard let outputPipe else { return "" }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

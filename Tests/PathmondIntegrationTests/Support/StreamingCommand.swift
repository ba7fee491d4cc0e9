// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A long-running command whose standard output is read line by line as it arrives (`pathctl monitor`).
final class StreamingCommand {
    private let process = Process()
    private let pipe = Pipe()
    private var buffer = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The next line of output; fails if none arrives within 15 s.
    func nextLine() throws -> String {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            var poller = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            buffer.append(chunk)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// SIGTERM, then SIGKILL if it is still there after 5 s: a child spawned from a test thread can inherit a
    /// signal mask that blocks SIGTERM, and a test must not hang on it.
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

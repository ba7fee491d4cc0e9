// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A program run for a test, its output (standard output and error together) recorded line by line as it arrives.
/// A test waits, with a deadline, for the next line that matches; every line stays in `lines` for assertions on
/// the order of events afterwards.
final class ProcessTranscript {
    /// What the program is, for failure messages.
    let name: String
    /// Every line read so far.
    private(set) var lines: [String] = []
    private var cursor = 0
    private var buffer = Data()
    private var isAtEnd = false
    private let process = Process()
    private let pipe = Pipe()
    /// Signalled when the program exits.
    private let exited = DispatchSemaphore(value: 0)

    init(_ name: String, _ arguments: [String]) throws {
        self.name = name
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    deinit {
        _ = terminate()
    }

    /// The next line, after the ones already consumed, that satisfies `predicate`; lines skipped on the way are
    /// consumed too. Fails if none arrives within `timeout`, or the program ends first.
    @discardableResult
    func next(
        _ description: String, timeout: Duration = .seconds(15), where predicate: (String) -> Bool
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let index = lines.indices.dropFirst(cursor).first(where: { predicate(lines[$0]) }) {
                cursor = index + 1
                return lines[index]
            }
            cursor = lines.count
            guard !isAtEnd, ContinuousClock.now < deadline else {
                throw TranscriptTimedOut(description: "\(name): \(description)", lines: lines)
            }
            read(until: deadline)
        }
    }

    /// The next line that starts with `prefix`.
    @discardableResult
    func next(startingWith prefix: String, timeout: Duration = .seconds(15)) throws -> String {
        try next("a line starting \"\(prefix)\"", timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Consumes everything the program has printed so far: `next` then sees only lines printed after this call.
    func skipToNow() {
        while read(until: ContinuousClock.now) {}
        cursor = lines.count
    }

    /// Sends SIGTERM, waits for the exit (SIGKILL after 10 s: a test must never hang on a program that ignores it),
    /// records the rest of the output and returns the exit status.
    @discardableResult
    func terminate() -> Int32 {
        if process.isRunning {
            process.terminate()
            if exited.wait(timeout: .now() + 10) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let deadline = ContinuousClock.now + .seconds(5)
        while !isAtEnd && ContinuousClock.now < deadline { read(until: deadline) }
        return process.terminationStatus
    }

    /// Reads what is there, or waits for output until `deadline`; splits it into lines. Returns whether anything
    /// was read.
    @discardableResult
    private func read(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = max(.zero, deadline - ContinuousClock.now)
        let milliseconds = Int32(
            remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
        var poller = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard !isAtEnd, poll(&poller, 1, max(1, milliseconds)) > 0 else { return false }
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { isAtEnd = true }
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
        return !chunk.isEmpty
    }
}

/// The line a test waited for did not come; carries every line that did.
struct TranscriptTimedOut: Error, CustomStringConvertible {
    let description: String

    init(description: String, lines: [String]) {
        self.description =
            "timed out waiting for \(description); its output:\n" + lines.map { "  \($0)" }.joined(separator: "\n")
    }
}

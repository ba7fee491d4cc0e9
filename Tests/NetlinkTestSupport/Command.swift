// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The outcome of a command the tests ran.
public struct CommandResult: Sendable {
    public var status: Int32
    public var output: String
    public var errorOutput: String

    public init(status: Int32, output: String, errorOutput: String) {
        self.status = status
        self.output = output
        self.errorOutput = errorOutput
    }
}

/// A command that failed while setting up a scenario.
public struct CommandError: Error, CustomStringConvertible {
    public var command: [String]
    public var result: CommandResult

    public init(command: [String], result: CommandResult) {
        self.command = command
        self.result = result
    }

    public var description: String {
        "\(command.joined(separator: " ")) exited \(result.status): \(result.errorOutput)\(result.output)"
    }
}

/// Runs a program to completion and captures its output. Output goes through files, not pipes, so a chatty
/// program can never block on a full pipe while we wait for it.
@discardableResult
public func runCommand(_ arguments: [String], input: String? = nil, check: Bool = true) throws -> CommandResult {
    let directory = FileManager.default.temporaryDirectory.appending(path: "pathmond-cmd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appending(path: "out")
    let errorURL = directory.appending(path: "err")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(filePath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: outputURL)
    process.standardError = try FileHandle(forWritingTo: errorURL)
    if let input {
        let inputURL = directory.appending(path: "in")
        try Data(input.utf8).write(to: inputURL)
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    process.waitUntilExit()
    let result = CommandResult(
        status: process.terminationStatus,
        output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
        errorOutput: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    if check && result.status != 0 { throw CommandError(command: arguments, result: result) }
    return result
}

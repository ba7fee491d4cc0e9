// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The NetworkManager or ModemManager stand-in of the watcher tests (NetworkHintsTests/Fixtures/dbus/standin.py,
/// their documented D-Bus interfaces) on a private bus, driven line by line: each command is answered "ok" once
/// its signals reached the bus daemon.
final class StandInProcess {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "NetworkHintsTests/Fixtures/dbus/standin.py").path

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// `kind`: networkmanager or modemmanager.
    init(_ kind: String, bus: PrivateSystemBus) throws {
        process.executableURL = URL(filePath: "/usr/bin/python3")
        process.arguments = [Self.script, kind, bus.address]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        #expect(try line() == "ready")
    }

    private func line() throws -> String {
        while !buffered.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw CommandError.missing("the stand-in's answer") }
            buffered.append(chunk)
        }
        let end = buffered.firstIndex(of: UInt8(ascii: "\n"))!
        let text = String(decoding: buffered[buffered.startIndex..<end], as: UTF8.self)
        buffered = Data(buffered[(end + 1)...])
        return text
    }

    /// Sends one command; returns what the stand-in printed before "ok".
    @discardableResult
    func send(_ command: String) throws -> [String] {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        var printed: [String] = []
        while true {
            let answer = try line()
            if answer == "ok" { return printed }
            if answer.hasPrefix("error") { throw CommandError.missing("\(command): \(answer)") }
            printed.append(answer)
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

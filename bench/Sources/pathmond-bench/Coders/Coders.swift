// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JSON
import PathProtocol

/// `pathmond-bench coders`: what a call's JSON costs the daemon since it dropped Foundation (issue 25), beside
/// Foundation's JSONDecoder and JSONEncoder (the daemon's coders before) on the same bytes in the same process: a
/// call's envelope as every call is read, and the replies of a live pathmond (ListInterfaces, GetPath) decoded and
/// encoded again.
struct Coders: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coders",
        abstract:
            "JSON decoding and encoding per call: pathmond's coders beside Foundation's, on a live daemon's replies.",
        discussion: """
            Creates its own network namespaces and starts pathmond in them (root needed) only to take its replies' \
            bytes; the coding itself runs in this process, each figure the median of --runs runs of --rounds codings.
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "Codings per run.")
    var rounds = 5000

    @Option(help: "Runs per figure (the median is shown).")
    var runs = 9

    func validate() throws {
        guard rounds > 0, runs > 0 else { throw ValidationError("--rounds and --runs must be positive.") }
    }

    func run() throws {
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        let socket = try VarlinkSocket(path: bench.pathmond.socketPath)
        let interfaces = try socket.call(#"{"method":"io.pathmond.ListInterfaces","parameters":{}}"#)
        let path = try socket.call(VarlinkSocket.getPathCall)
        let call = Array(#"{"method":"io.pathmond.WatchPath","more":true,"parameters":{}}"#.utf8)
        var table = FigureTable(
            title: "JSON per call (\(rounds) codings a run, median of \(runs) runs)", referenceName: "Foundation")
        try compare(VarlinkCall.self, call, "a call's envelope", into: &table)
        try compare(VarlinkReply<Methods.InterfacesReply>.self, interfaces, "ListInterfaces reply", into: &table)
        try compare(VarlinkReply<Methods.PathReply>.self, path, "GetPath reply", into: &table)
        table.note(
            "ListInterfaces reply: \(interfaces.count) bytes, GetPath reply: \(path.count) bytes; encoding: keys "
                + "sorted, slashes unescaped, as the daemon writes")
        print(table.render())
    }

    private func compare<Message: Codable>(
        _ type: Message.Type, _ bytes: [UInt8], _ name: String, into table: inout FigureTable
    ) throws {
        let ours = JSONValueDecoder()
        let theirs = JSONDecoder()
        let data = Data(bytes)
        let decodedOurs = median { _ = try? ours.decode(type, from: bytes) }
        let decodedTheirs = median { _ = try? theirs.decode(type, from: data) }
        table.addTime("\(name): decode", decodedOurs, decodedTheirs)
        let message = try ours.decode(type, from: bytes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard try JSONValueEncoder().encode(message) == [UInt8](encoder.encode(message)) else {
            throw BenchError.setup("\(name): the two encoders disagree")
        }
        let encodedOurs = median { _ = try? JSONValueEncoder().encode(message) }
        let encodedTheirs = median { _ = try? encoder.encode(message) }
        table.addTime("\(name): encode", encodedOurs, encodedTheirs)
    }

    /// Nanoseconds per coding: the median over `runs` runs of `rounds` codings.
    private func median(_ coding: () -> Void) -> UInt64 {
        var perRun: [UInt64] = []
        for _ in 0..<runs {
            let start = monotonicNanoseconds()
            for _ in 0..<rounds { coding() }
            perRun.append((monotonicNanoseconds() - start) / UInt64(rounds))
        }
        return perRun.sorted()[runs / 2]
    }
}

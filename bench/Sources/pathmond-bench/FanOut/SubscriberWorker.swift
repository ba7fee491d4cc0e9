// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench fan-out-worker` (internal; `fan-out` starts several): a client process holding --count
/// subscribers, pathmond's (WatchPath, or WatchFlow numbered from --first) or the raw fan-out's (connected, nothing
/// sent). Its `SubscriberSet` stamps them as the bench's own did; it answers the bench's `WorkerCommand`s on its
/// standard input with `WorkerReply`s on its standard output, and ends at end of input. One process holds only its
/// share of the descriptors, so ten thousand subscribers fit under a per-process open-file limit of 20,000.
struct SubscriberWorker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fan-out-worker", abstract: "Subscribers in a process of their own (used by `fan-out`).",
        shouldDisplay: false)

    enum Kind: String, ExpressibleByArgument {
        case path, flow, raw
    }

    @Option var socket: String
    @Option var kind: Kind
    @Option var first = 0
    @Option var count: Int

    func run() throws {
        _ = raiseOpenFileLimit()
        let channel = LineChannel(input: 0, output: 1)
        let started = monotonicNanoseconds()
        let set: SubscriberSet
        do {
            set = try connect()
        } catch {
            channel.write(WorkerReply.failed("\(error)").line)
            throw ExitCode.failure
        }
        defer { set.stop() }
        channel.write(WorkerReply.ready(nanoseconds: monotonicNanoseconds() - started).line)
        while let line = channel.readLine() {
            guard let command = WorkerCommand(line: line) else {
                channel.write(WorkerReply.failed("not a command: \(line)").line)
                throw ExitCode.failure
            }
            switch command {
            case .arm(let deadline):
                let leftovers = set.discardLeftovers()
                set.arm()
                channel.write(WorkerReply.armed(leftovers: leftovers).line)
                let stamps = set.awaitAll(deadline: deadline)
                channel.write(WorkerReply.stamps(WorkerArrivals(stamps: stamps)).line)
            case .drain(let request, let expected):
                channel.write(Self.drained(set.drain(), frames: request, expected: expected))
            }
        }
    }

    private func connect() throws(BenchError) -> SubscriberSet {
        switch kind {
        case .path:
            return try SubscriberSet(
                socketPath: socket, requests: Array(repeating: VarlinkSocket.watchPathCall, count: count))
        case .flow:
            return try SubscriberSet(socketPath: socket, requests: (first..<(first + count)).map(FanOutRun.flowCall))
        case .raw:
            var sockets: [VarlinkSocket] = []
            for _ in 0..<count { sockets.append(try VarlinkSocket(path: socket)) }
            return try SubscriberSet(sockets: sockets)
        }
    }

    /// The drain's reply and the frames asked for; the counts as `FanOutTally` made them in the bench's process.
    static func drained(_ frames: [[[UInt8]]], frames request: WorkerCommand.FrameRequest, expected: String)
        -> [String]
    {
        var wrong = 0
        var extra = 0
        for received in frames {
            if let newest = received.last, !newest.containsCompact(expected) { wrong += 1 }
            extra += max(0, received.count - 1)
        }
        let newest: [[UInt8]?]
        switch request {
        case .none: newest = []
        case .first: newest = [frames.lazy.compactMap(\.last).first]
        case .each: newest = frames.map(\.last)
        }
        return [WorkerReply.drained(wrongContent: wrong, extraUpdates: extra, frames: newest.count).line]
            + newest.map(FrameLine.encode)
    }
}

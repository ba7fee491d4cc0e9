// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// The client library never takes one call's reply for another's (issue 22): Varlink replies name no call, so a
/// reply left unread (a call that timed out, a stream left early) must never be read as the next call's answer.
/// A fake pathmond holds each reply back until the client has moved on to its next call.
@Suite(.serialized) struct LateReplyTests {
    static let first = Path.unsatisfied(.noInterfaces)
    static let second = Path.unsatisfied(.noDefaultRoute)

    @Test func aTimedOutCallsLateReplyIsNotTheNextCallsAnswer() throws {
        // The first call's reply is held until the second call arrives: then both replies go, in order.
        let daemon = try FakeDaemon("timeout") { daemon, client in
            var buffer: [UInt8] = []
            guard daemon.readCall(client, buffer: &buffer) != nil else { return }
            guard daemon.readCall(client, buffer: &buffer) != nil else { return }
            daemon.send(client, daemon.reply(Self.first) + daemon.reply(Self.second))
        }
        let connection = try PathmondConnection(socketPath: daemon.path, replyTimeout: .milliseconds(200))
        #expect(throws: PathmondClientError.timedOut(socketPath: daemon.path)) { try connection.path() }
        // The late reply (the first path) must not answer this call; the connection is given up instead.
        #expect(throws: PathmondClientError.timedOut(socketPath: daemon.path)) {
            let path = try connection.path()
            Issue.record("a second call on a timed-out connection answered \(path)")
        }
        #expect(daemon.wait())
        #expect(daemon.calls.withLock { $0.count } == 1, "the second call was never sent")
        // A new connection works as ever.
        let daemon2 = try FakeDaemon("fresh") { daemon, client in
            var buffer: [UInt8] = []
            guard daemon.readCall(client, buffer: &buffer) != nil else { return }
            daemon.send(client, daemon.reply(Self.second))
        }
        #expect(try PathmondConnection(socketPath: daemon2.path).path() == Self.second)
        #expect(daemon2.wait())
    }

    @Test func aStreamLeftEarlyDoesNotAnswerTheNextCall() throws {
        // WatchPath: the first update at once; the next is sent when the client's next call arrives.
        let daemon = try FakeDaemon("stream") { daemon, client in
            var buffer: [UInt8] = []
            guard daemon.readCall(client, buffer: &buffer) != nil else { return }
            daemon.send(client, daemon.reply(Self.first, continues: true))
            guard daemon.readCall(client, buffer: &buffer) != nil else { return }
            daemon.send(client, daemon.reply(Self.second, continues: true) + daemon.reply(Self.second))
        }
        let connection = try PathmondConnection(socketPath: daemon.path, replyTimeout: .seconds(5))
        var seen: [Path] = []
        try connection.watchPath { path in
            seen.append(path)
            return false
        }
        #expect(seen == [Self.first])
        #expect(throws: PathmondClientError.disconnected) {
            let path = try connection.path()
            Issue.record("a call after a stream was answered by the stream: \(path)")
        }
        #expect(daemon.wait())
        #expect(daemon.calls.withLock { $0.count } == 1)
    }
}

/// A listening socket whose one client is served by `serve` on another thread.
private final class FakeDaemon: Sendable {
    let path: String
    private let listener: Int32
    private let finished = DispatchSemaphore(value: 0)
    /// The calls the client managed to send, in order.
    let calls = Locked<[String]>([])

    init(_ name: String, serve: @escaping @Sendable (FakeDaemon, Int32) -> Void) throws {
        path = "/tmp/pmit-late-\(getpid())-\(name)"
        unlink(path)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = UnixSocketAddress(path: path)!.withSocketAddress { bind(listener, $0, $1) }
        guard listener >= 0, bound == 0, listen(listener, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        self.listener = listener
        DispatchQueue.global().async { [self] in
            let client = accept(listener, nil, nil)
            serve(self, client)
            close(client)
            finished.signal()
        }
    }

    /// Reads one NUL-terminated call; nil when the client closed the connection first.
    func readCall(_ client: Int32, buffer: inout [UInt8]) -> String? {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let call = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                calls.withLock { $0.append(call) }
                return call
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    func send(_ client: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func reply(_ path: Path, continues: Bool = false) -> [UInt8] {
        VarlinkCodec().encodeReply(Methods.PathReply(path: WirePath(path)), continues: continues)
    }

    /// Waits for the fake daemon's thread to finish.
    func wait() -> Bool {
        finished.wait(timeout: .now() + 10) == .success
    }

    deinit {
        close(listener)
        unlink(path)
    }
}

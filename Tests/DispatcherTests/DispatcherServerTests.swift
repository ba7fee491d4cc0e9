// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Logging
import PathProtocol
import SDEvent
import Testing

@testable import pathmond_dispatcher

/// The dispatcher's socket, which any user can reach: a client that connects and says nothing (or half a call)
/// holds neither the loop nor another client's answer, and is closed at its deadline; the socket is open to all.
@Suite struct DispatcherServerTests {
    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = UnixSocketAddress(path: path),
            address.withSocketAddress({ Glibc.connect(descriptor, $0, $1) }) == 0
        else { throw POSIXError(.ECONNREFUSED) }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// Reads until the peer closes (or 5 s pass); the bytes read.
    static func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    @Test func aStalledClientDoesNotDelayAnotherClientsAnswer() throws {
        let directory = "/tmp/pmdserver-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/io.pathmond.Dispatcher"
        let loop = try SDEventLoop.startedOnNewThread(name: "test-dserver")
        defer { loop.exit() }
        let server = loop.sync {
            UncheckedTransfer(
                DispatcherServer(path: path, loop: loop, logger: Logger(label: "test")) { _ in
                    VarlinkCodec().encodeReply(NoParameters())
                })
        }
        try loop.sync { Result { try server.value.start() } }.get()
        defer { loop.sync { server.value.stop() } }
        var status = stat()
        stat(path, &status)
        #expect(status.st_mode & 0o777 == 0o666)

        // One client connects and stalls; another, half a call.
        let stalled = try Self.connect(path)
        defer { close(stalled) }
        let half = try Self.connect(path)
        defer { close(half) }
        _ = "{\"method\":\"io.pathmond.Dis".withCString { send(half, $0, strlen($0), 0) }
        usleep(100_000)
        let started = ContinuousClock.now
        let client = try Self.connect(path)
        defer { close(client) }
        let call = VarlinkCodec().encode(
            VarlinkCallWithParameters<NoParameters>(method: DispatcherProtocol.Method.listDeferred.rawValue))
        _ = call.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        let reply = Self.readAll(client)
        let took = ContinuousClock.now - started
        #expect(reply.last == 0 && reply.count > 1)
        #expect(took < .milliseconds(500), "answered after \(took)")

        // The stalled clients are closed at the deadline (2 s), unanswered.
        #expect(Self.readAll(stalled).isEmpty)
        #expect(Self.readAll(half).isEmpty)
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(loop.sync { server.value.openConnections } == 0)
    }
}

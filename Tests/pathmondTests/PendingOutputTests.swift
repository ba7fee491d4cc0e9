// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemPackage
import Testing

@testable import pathmond

/// Replies a client's socket refuses wait, in order, and go out whole once it reads: on a real socketpair with a
/// small send buffer.
@Suite struct PendingOutputTests {
    /// A connected pair: the server end non-blocking, with the smallest send buffer the kernel allows.
    static func socketPair() -> (server: FileDescriptor, client: Int32) {
        var ends: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &ends) == 0)
        var size: Int32 = 4096
        setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return (FileDescriptor(rawValue: ends[0]), ends[1])
    }

    static func readAll(_ descriptor: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return result }
            result += buffer[..<count]
        }
    }

    @Test func whatTheSocketRefusesWaitsAndFollowsInOrder() throws {
        let (server, client) = Self.socketPair()
        defer {
            try? server.close()
            close(client)
        }
        var output = PendingOutput()
        // Replies of 1 KiB, each numbered in every byte, until the socket refuses some.
        var sent: [[UInt8]] = []
        while output.isEmpty {
            let reply = [UInt8](repeating: UInt8(sent.count % 251), count: 1024)
            sent.append(reply)
            try output.write(reply, to: server)
        }
        // More, while some wait: they queue behind, never ahead.
        for _ in 0..<20 {
            let reply = [UInt8](repeating: UInt8(sent.count % 251), count: 1024)
            sent.append(reply)
            try output.write(reply, to: server)
        }
        #expect(output.byteCount > 20 * 1024)
        var received = Self.readAll(client)
        while !(try output.flush(to: server)) {
            received += Self.readAll(client)
        }
        #expect(output.isEmpty)
        received += Self.readAll(client)
        #expect(received == sent.flatMap { $0 })
    }

    @Test func aClosedPeerIsAnError() throws {
        let (server, client) = Self.socketPair()
        defer { try? server.close() }
        close(client)
        var output = PendingOutput()
        signal(SIGPIPE, SIG_IGN)
        #expect(throws: Errno.brokenPipe) { try output.write([1, 2, 3], to: server) }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathProtocol
import Testing
import libpathmond

#if canImport(Glibc)
    import Glibc
#endif

/// Watches driven as a caller's main loop drives them: the descriptor, the events, pathmond_client_process().
@Suite struct WatchTests {
    static func reply(_ path: Path, continues: Bool = true) -> [UInt8] {
        ReplyTests.reply(path, continues: continues)
    }

    static let cheap = Path(status: .satisfied, isExpensive: false)
    static let expensive = Path(status: .satisfied, isExpensive: true)

    /// Calls process until it says nothing more is waiting (at most `rounds` times).
    @discardableResult
    func drain(_ pair: SocketPair, rounds: Int = 100) -> Int32 {
        var r: Int32 = 0
        for _ in 0..<rounds {
            r = pathmond_client_process(pair.client)
            if r <= 0 { break }
        }
        return r
    }

    @Test func theWatchSendsItsCallAndHearsEveryChange() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        let call = try VarlinkCodec().decode(
            VarlinkCallWithParameters<Methods.PathParameters>.self, from: pair.receiveCall())
        #expect(call.method == "io.pathmond.WatchPath" && call.more == true)
        #expect(pathmond_client_get_events(pair.client) == Int32(POLLIN))
        #expect(pathmond_client_get_fd(pair.client) >= 0)

        pair.send(Self.reply(Self.cheap))
        #expect(drain(pair) == 0)
        pair.send(Self.reply(Self.expensive))
        #expect(drain(pair) == 0)
        #expect(heard.paths.map(\.expensive) == [false, true])
        #expect(heard.errors.isEmpty)
        // A watch owns its connection.
        var path: OpaquePointer?
        #expect(pathmond_get_path(pair.client, nil, &path) == -EBUSY)
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == -EBUSY)
        // Nothing waiting: process reads nothing and calls nothing.
        #expect(drain(pair) == 0)
        #expect(heard.paths.count == 2)
    }

    /// Replies that arrived together: only the newest is given, each supersedes the ones before.
    @Test func aBurstIsOnePath() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        pair.send((0..<100).flatMap { Self.reply($0 == 99 ? Self.expensive : Self.cheap) })
        #expect(drain(pair) == 0)
        #expect(heard.paths.map(\.expensive) == [true])
    }

    /// Megabytes of replies, as a flood from a server gone wrong: each call of process reads at most its budget and
    /// says so (1), the loop runs between slices, and the last path of the flood is the last one handed over.
    @Test func aFloodIsReadInSlicesAndEndsWithItsNewestPath() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        let flood = (0..<20_000).flatMap { Self.reply($0 == 19_999 ? Self.expensive : Self.cheap) }
        let server = pair.server
        let write: @Sendable () -> Void = {
            _ = flood.withUnsafeBytes { Glibc.send(server, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(server, Int32(SHUT_WR))
        }
        // Queued whole before the first read where the socket may hold it (root raises the limit): a reader that
        // drained a writer starved of the CPU, on a loaded machine, found less than its budget every time and
        // never read a slice. Elsewhere the writer races the reader from a thread.
        var room = Int32(4 * flood.count)
        if setsockopt(server, SOL_SOCKET, SO_SNDBUFFORCE, &room, socklen_t(MemoryLayout<Int32>.size)) == 0 {
            write()
        } else {
            Thread { write() }.start()
        }
        var slices = 0
        var rounds = 0
        while heard.errors.isEmpty, rounds < 100_000 {
            var descriptor = pollfd(fd: pathmond_client_get_fd(pair.client), events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 5000)
            if pathmond_client_process(pair.client) == 1 { slices += 1 }
            rounds += 1
        }
        #expect(flood.count > 2 << 20)
        #expect(slices >= 1)
        #expect(heard.paths.last?.expensive == true)
        #expect(heard.paths.count < 20_000)
        #expect(heard.errors == [-ECONNRESET])
    }

    /// One byte at a time: nothing until the NUL, then exactly the path.
    @Test func aReplyInPiecesIsOnePath() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        for byte in Self.reply(Self.expensive) {
            #expect(heard.paths.isEmpty)
            pair.send([byte])
            #expect(drain(pair) == 0)
        }
        #expect(heard.paths.map(\.expensive) == [true])
    }

    @Test func theEndOfTheStreamEndsTheWatchOnce() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        pair.send(Self.reply(Self.cheap))
        pair.closeServer()
        #expect(drain(pair) == -ECONNRESET)
        #expect(heard.paths.count == 1)
        #expect(heard.errors == [-ECONNRESET])
        #expect(pathmond_client_process(pair.client) == -ECONNRESET)
        #expect(heard.errors.count == 1)
    }

    @Test func aReplyWithoutContinuesEndsTheWatch() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        pair.send(Self.reply(Self.expensive, continues: false))
        #expect(drain(pair) == -ECONNRESET)
        #expect(heard.paths.map(\.expensive) == [true])
        #expect(heard.errors == [-ECONNRESET])
    }

    @Test func aBadReplyEndsTheWatchWithItsCode() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_path(pair.client, nil, pathHandler, heard.userdata) == 0)
        pair.send(Self.reply(Self.cheap))
        #expect(drain(pair) == 0)
        pair.send(#"{"parameters":{"path":{"status":"satisfied","isExpensive":"yes"}},"continues":true}"# + "\0")
        #expect(drain(pair) == -EBADMSG)
        #expect(heard.errors == [-EBADMSG])
    }

    /// The handler may free its client when it hears the end; nothing touches the client after.
    @Test func theHandlerMayFreeItsClient() throws {
        var descriptors: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        defer { close(descriptors[1]) }
        var client: OpaquePointer?
        #expect(pathmond_connect_fd(descriptors[0], &client) == 0)
        let heard = Heard()
        heard.freeClientOnError = client
        #expect(pathmond_watch_path(client, nil, pathHandler, heard.userdata) == 0)
        shutdown(descriptors[1], Int32(SHUT_RDWR))
        #expect(pathmond_client_process(client) == -ECONNRESET)
        #expect(heard.errors == [-ECONNRESET])
    }

    /// Data the client never asked for is not a reply.
    @Test func anUnaskedReplyFinishesTheClient() throws {
        let pair = try SocketPair()
        pair.send(Self.reply(Self.cheap))
        #expect(pathmond_client_process(pair.client) == -EBADMSG)
    }

    @Test func aFlowWatchCarriesTheFlowAndHearsItsStatus() throws {
        let pair = try SocketPair()
        let heard = Heard()
        var requirements: OpaquePointer?
        #expect(pathmond_requirements_new(&requirements) == 0)
        defer { pathmond_requirements_free(requirements) }
        #expect(pathmond_requirements_set_prohibit_expensive(requirements, 1) == 0)
        #expect(
            pathmond_watch_flow(
                pair.client, "eth0", "192.0.2.10", "198.51.100.7", requirements, PATHMOND_FLOW_BOUND, flowHandler,
                heard.userdata) == 0)
        let call = try VarlinkCodec().decode(
            VarlinkCallWithParameters<Methods.FlowParameters>.self, from: pair.receiveCall())
        #expect(call.method == "io.pathmond.WatchFlow" && call.more == true)
        let flow = try #require(call.parameters?.flow)
        #expect(flow.interface == "eth0" && flow.localAddress == "192.0.2.10" && flow.remoteAddress == "198.51.100.7")
        #expect(flow.bound == true && flow.requirements?.prohibitExpensive == true)

        let status = FlowStatus(
            isViable: false, betterPathAvailable: true, betterInterface: "wlan0",
            betterInterfaceAddresses: [IPAddress("198.51.100.10")!])  // a valid literal
        pair.send(VarlinkCodec().encodeReply(Methods.FlowReply(status: WireFlowStatus(status)), continues: true))
        #expect(drain(pair) == 0)
        let first = try #require(heard.flows.first)
        #expect(!first.viable && first.better && first.betterInterface == "wlan0")
        #expect(first.addresses == ["198.51.100.10"])

        pair.send(#"{"parameters":{"status":{"betterPathAvailable":false}},"continues":true}"# + "\0")
        #expect(drain(pair) == -EBADMSG)
        #expect(heard.errors == [-EBADMSG])
    }

    @Test func aFlowWatchRefusesBadArguments() throws {
        let pair = try SocketPair()
        let heard = Heard()
        #expect(pathmond_watch_flow(pair.client, nil, "x", nil, nil, 0, flowHandler, heard.userdata) == -EINVAL)
        #expect(pathmond_watch_flow(pair.client, "eth0", "x", nil, nil, 0x10, flowHandler, heard.userdata) == -EINVAL)
        #expect(pathmond_watch_flow(pair.client, "eth0", "x", nil, nil, 0, nil, heard.userdata) == -EINVAL)
        // A call over the method's limit is never sent.
        let long = String(repeating: "a", count: 70_000)
        #expect(pathmond_watch_flow(pair.client, long, "x", nil, nil, 0, flowHandler, heard.userdata) == -EMSGSIZE)
        #expect(pair.receiveCall().isEmpty)
        #expect(pathmond_watch_flow(pair.client, "eth0", "x", nil, nil, 0, flowHandler, heard.userdata) == 0)
    }
}

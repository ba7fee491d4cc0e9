// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench raw-listen` (internal): the least a program can do with route events, as a process of its own so
/// that its CPU time is measured like pathmond's: a NETLINK_ROUTE socket in pathmond's groups with a 32 MiB buffer,
/// each datagram's headers parsed. On SIGTERM it prints "messages N overflows M" and exits.
///
/// With `--pathmond-calls` it also makes, for each IPv4 default route message, the system calls pathmond makes for a
/// path flip: the four internet probes asked of the kernel in one datagram (`RouteAsker`), a 623-byte update and a
/// 101-byte log line written, both to /dev/null (cheaper than a subscriber's socket and the journal, so a lower
/// bound): the floor of CPU per flip for any daemon that follows the kernel's decision and says so.
struct RawListen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raw-listen", abstract: "A raw netlink listener (used by `storm`).", shouldDisplay: false)

    @Flag(help: "Also make pathmond's system calls for each default route message.")
    var pathmondCalls = false

    @Flag(help: "Also listen to neighbour entries (RTMGRP_NEIGH), as pathmond does: for neighbour events.")
    var neighbours = false

    static let stopRequested = Atomic<Bool>(false)

    /// pathmond's internet probes for IPv4 (PathModel's `RouteQuery.internetProbes`), as root.
    static let probes: [[UInt8]] = [[1, 1, 1, 1], [9, 9, 9, 9], [149, 112, 112, 112], [208, 67, 222, 222]]

    func run() throws {
        // The handler only sets a flag; the loop below looks at it at least every 100 ms.
        signal(SIGTERM) { _ in RawListen.stopRequested.store(true, ordering: .relaxed) }
        let fd = try RTNetlink.openSocket(
            groups: RTNetlink.monitorGroups | (neighbours ? RTNetlink.neighbourGroup : 0))
        var size: Int32 = 32 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        var messages = 0
        var overflows = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        let calls = try pathmondCalls ? PathmondCalls() : nil
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !Self.stopRequested.load(ordering: .relaxed) {
            guard poll(&poller, 1, 100) > 0 else { continue }
            // Drain what is there: one wake-up, as many datagrams as queued.
            while true {
                let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if count < 0 {
                    if errno == ENOBUFS {
                        overflows += 1
                        continue
                    }
                    break
                }
                let parsed = RawMessage.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                messages += parsed.count
                if let calls, parsed.contains(where: PathmondCalls.isDefaultRoute) { calls.make() }
            }
        }
        print("messages \(messages) overflows \(overflows)")
    }
}

/// The system calls of one path flip in pathmond, made without pathmond's work between them.
private final class PathmondCalls {
    private let asker: RouteAsker
    private let probes: RouteAsker.Datagram
    private let sink: Int32
    private let update = [UInt8](repeating: 0x20, count: 623)
    private let line = [UInt8](repeating: 0x20, count: 101)

    init() throws(BenchError) {
        asker = try RouteAsker()
        probes = RouteAsker.pack(RawListen.probes.map { RouteAsker.Query(remote: $0) })[0]
        sink = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard sink >= 0 else { throw .system("open(/dev/null)", errno) }
    }

    deinit { close(sink) }

    static func isDefaultRoute(_ message: RawMessage) -> Bool {
        (message.type == RTNetlink.newRoute || message.type == RTNetlink.deleteRoute)
            && message.family == UInt8(AF_INET) && message.prefixLength == 0
    }

    func make() {
        _ = asker.ask(probes)
        _ = update.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
        _ = line.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
    }
}

// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench raw-listen` (internal): the least a program can do with route events, as a process of its own so
/// that its CPU time is measured like pathmond's: a NETLINK_ROUTE socket in pathmond's groups with a 32 MiB buffer,
/// each datagram's headers parsed. On SIGTERM it prints "messages N overflows M" and exits.
struct RawListen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raw-listen", abstract: "A raw netlink listener (used by `storm`).", shouldDisplay: false)

    static let stopRequested = Atomic<Bool>(false)

    func run() throws {
        // The handler only sets a flag; the loop below looks at it at least every 100 ms.
        signal(SIGTERM) { _ in RawListen.stopRequested.store(true, ordering: .relaxed) }
        let fd = try RTNetlink.openSocket(groups: RTNetlink.monitorGroups)
        var size: Int32 = 32 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        var messages = 0
        var overflows = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
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
                messages += RawMessage.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])).count
            }
        }
        print("messages \(messages) overflows \(overflows)")
    }
}

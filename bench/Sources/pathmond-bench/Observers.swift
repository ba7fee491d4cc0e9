// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// Observer (a): the least a program can do to hear of a change, a raw NETLINK_ROUTE socket in the groups
/// pathmond listens to, read with a blocking recv on its own thread. Its figures are the floor.
final class RawListener: Sendable {
    private let fd: Int32
    private let probe: Probe

    init(probe: Probe) throws(BenchError) {
        self.probe = probe
        fd = try RTNetlink.openSocket(groups: RTNetlink.monitorGroups)
        // 4 MiB (SO_RCVBUFFORCE, root only): a benchmark of latency should not also measure losses.
        var size: Int32 = 4 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Starts the listening thread; it lives as long as the process.
    func start() {
        let fd = fd
        let probe = probe
        startThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
            while true {
                let count = recv(fd, buffer.baseAddress, buffer.count, 0)
                // Timestamp first: parsing and matching are the bench's cost, not the kernel's.
                let time = monotonicNanoseconds()
                if count < 0 {
                    if errno == ENOBUFS { probe.rawOverflowed() }
                    if errno == EINTR || errno == ENOBUFS { continue }
                    return
                }
                probe.rawArrived(RawMessage.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])), at: time)
            }
        }
    }

    /// Stops hearing changes: the thread stays blocked in recv and is never woken again (see `leaveGroups`).
    func stop() {
        RTNetlink.leaveGroups(fd, RTNetlink.monitorGroups)
    }
}

/// Observer (b): a client of pathmond through the client library, as an app would use it. The timestamp is
/// taken in the handler on the app's queue, so it includes the library's hop onto that queue.
final class SubscriberObserver: Sendable {
    private let monitor: NetworkPathMonitor
    private let probe: Probe
    private let queue = DispatchQueue(label: "pathmond-bench.subscriber")

    init(socketPath: String, probe: Probe) {
        monitor = NetworkPathMonitor(socketPath: socketPath, retryDelay: .milliseconds(50))
        self.probe = probe
    }

    func start() {
        let probe = probe
        monitor.start(queue: queue) { update in
            let time = monotonicNanoseconds()
            if case .path(let path) = update { probe.pathArrived(path, at: time) }
        }
    }

    func cancel() {
        monitor.cancel()
    }
}

/// Runs `body` on a new detached POSIX thread, so a blocking loop holds no Dispatch or Swift concurrency worker.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { context in
            // The box was retained for exactly this thread; take that reference back. Never nil: we pass it.
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box)
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
}

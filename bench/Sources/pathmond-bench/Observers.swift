// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import PathModel
import PathMonitor
import PathProtocol

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

/// Observer (c): a WatchPath subscriber that reads pathmond's socket itself, as the observers written in C
/// do: a blocking recv on its own thread, stamped when recv returns, decoded after. Its figures are pathmond's own
/// latency, beside the raw listener's; (b)'s add the client library's decoding and its hop onto the app's queue.
final class WireObserver: Sendable {
    private let socketPath: String
    private let probe: Probe
    /// The connection's descriptor while the thread reads it: `stop` shuts it down, which ends the read.
    private let descriptor = Locked<Int32?>(nil)

    init(socketPath: String, probe: Probe) {
        self.socketPath = socketPath
        self.probe = probe
    }

    /// Connects, subscribes and starts the reading thread; returns once the call is sent.
    func start() throws(BenchError) {
        let started = DispatchSemaphore(value: 0)
        let failure = Locked<BenchError?>(nil)
        let (socketPath, probe, descriptor) = (socketPath, probe, descriptor)
        startThread {
            let socket: VarlinkSocket
            do throws(BenchError) {
                socket = try VarlinkSocket(path: socketPath)
            } catch {
                failure.withLock { $0 = error }
                _ = started.signal()
                return
            }
            guard socket.send(VarlinkSocket.watchPathCall) else {
                failure.withLock { $0 = .system("send(WatchPath)", errno) }
                _ = started.signal()
                return
            }
            descriptor.withLock { $0 = socket.fd }
            started.signal()
            Self.read(socket, into: probe)
            descriptor.withLock { $0 = nil }
        }
        started.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        probe.setWireObserved(true)
    }

    /// Ends the subscription: the reading thread returns and closes the socket.
    func stop() {
        probe.setWireObserved(false)
        descriptor.withLock { if let fd = $0 { _ = shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    private static func read(_ socket: VarlinkSocket, into probe: Probe) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var pending: [UInt8] = []
        let codec = VarlinkCodec()
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            // Timestamp first: decoding is the bench's cost, not pathmond's.
            let time = monotonicNanoseconds()
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            pending += buffer[..<count]
            while let end = pending.firstIndex(of: 0) {
                let frame = Array(pending[..<end])
                pending.removeSubrange(...end)
                let reply = try? codec.decode(VarlinkReply<Methods.PathReply>.self, from: frame)
                if let path = try? reply?.parameters?.path.path() { probe.wireArrived(path, at: time) }
            }
        }
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

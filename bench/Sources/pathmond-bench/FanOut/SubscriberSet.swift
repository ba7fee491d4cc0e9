// SPDX-License-Identifier: Apache-2.0
import CBenchSupport
import Dispatch
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Many streaming subscribers on one epoll set (edge-triggered; each of fan-out's worker processes holds one). After
/// `arm()`, a thread stamps each socket's first readiness and reads nothing: the stamp is when the daemon's write woke
/// the subscriber, and the bench's own reading (done afterwards by `drain()`) never delays a later stamp.
final class SubscriberSet: @unchecked Sendable {
    // @unchecked: `sockets` are touched only by the thread that created the set; the stamping thread uses only
    // `epoll`, `wake` and `state` (behind a lock).
    private struct State {
        var armed = false
        var stamps: [UInt64]
        var arrived = 0
        var stopped = false
    }

    private let sockets: [VarlinkSocket]
    private let epoll: Int32
    private let wake: Int32
    private let state: Locked<State>
    private let signal = DispatchSemaphore(value: 0)

    /// Connects one subscriber per request (each a call with "more"), waits for every first reply, and starts
    /// stamping. Throws with the daemon's answer if any first reply is an error.
    convenience init(socketPath: String, requests: [String]) throws(BenchError) {
        var sockets: [VarlinkSocket] = []
        sockets.reserveCapacity(requests.count)
        for request in requests {
            let socket = try VarlinkSocket(path: socketPath)
            guard socket.send(request) else { throw .system("send(subscribe)", errno) }
            sockets.append(socket)
        }
        for (index, socket) in sockets.enumerated() {
            guard let first = socket.receive(timeoutMilliseconds: 30_000) else {
                throw .setup("subscriber \(index) got no first reply within 30 s")
            }
            guard !first.containsCompact(#""error":"#) else {
                throw .setup("pathmond refused subscriber \(index): \(String(decoding: first, as: UTF8.self))")
            }
        }
        try self.init(sockets: sockets)
    }

    /// Stamps sockets that are already open and subscribed (pathmond's above, or the raw fan-out's connections), so
    /// that both are timed by this one implementation.
    init(sockets: [VarlinkSocket]) throws(BenchError) {
        self.sockets = sockets
        state = Locked(State(stamps: [UInt64](repeating: 0, count: sockets.count)))
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0 else { throw .system("epoll_create1/eventfd", errno) }
        for (index, socket) in sockets.enumerated() {
            try add(socket.fd, tag: UInt64(index))
        }
        try add(wake, tag: UInt64.max)
        let count = sockets.count
        startThread { [self] in stampLoop(count: count) }
    }

    private func add(_ fd: Int32, tag: UInt64) throws(BenchError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLET.rawValue
        event.data.u64 = tag
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { throw .system("epoll_ctl", errno) }
    }

    private func stampLoop(count: Int) {
        var events = [epoll_event](repeating: epoll_event(), count: 1024)
        while true {
            let ready = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, 1024, -1) }
            let time = monotonicNanoseconds()
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            let complete = state.withLock { state -> Bool in
                guard state.armed else { return false }
                for event in events[..<Int(ready)] where event.data.u64 < UInt64(count) {
                    let index = Int(event.data.u64)
                    if state.stamps[index] == 0 {
                        state.stamps[index] = time
                        state.arrived += 1
                    }
                }
                return state.arrived == count
            }
            if complete { signal.signal() }
            if state.withLock({ $0.stopped }) {
                close(epoll)
                close(wake)
                return
            }
        }
    }

    var count: Int { sockets.count }

    /// Starts stamping the next arrival on every socket.
    func arm() {
        state.withLock { state in
            for index in state.stamps.indices { state.stamps[index] = 0 }
            state.arrived = 0
            state.armed = true
        }
    }

    /// Waits until every subscriber was stamped or the deadline (monotonic) passes; the stamps, 0 for none. Disarms.
    func awaitAll(deadline: UInt64) -> [UInt64] {
        while true {
            if state.withLock({ $0.arrived == $0.stamps.count }) { break }
            let now = monotonicNanoseconds()
            guard now < deadline else { break }
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(deadline - now)))
        }
        return state.withLock { state in
            state.armed = false
            return state.stamps
        }
    }

    /// Reads every subscriber's socket now; the complete frames each holds.
    func drain() -> [[[UInt8]]] {
        sockets.map { socket in
            socket.readAvailable()
            var frames: [[UInt8]] = []
            while let frame = socket.nextFrame() { frames.append(frame) }
            return frames
        }
    }

    /// Ends the stamping thread; the sockets close when the set goes away.
    func stop() {
        state.withLock { $0.stopped = true }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// The reference for one change at a time: a raw NETLINK_ROUTE listener (pathmond's groups, blocking recv on its
/// own thread, stamped as recv returns) that records when the armed change's notification arrived.
final class RawStamp: Sendable {
    private struct State {
        var match: RawMatch?
        var t0: UInt64 = 0
        var arrival: UInt64?
        var overflows = 0
    }

    private let fd: Int32
    private let state = Locked(State())
    private let signal = DispatchSemaphore(value: 0)

    /// Opens the socket in `namespace` and starts reading.
    init(in namespace: BenchNamespace) throws(BenchError) {
        fd = try namespace.entered { () throws(BenchError) in try RTNetlink.openSocket(groups: RTNetlink.monitorGroups)
        }
        var size: Int32 = 4 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        let fd = fd
        startThread { [self] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
            while true {
                let count = recv(fd, buffer.baseAddress, buffer.count, 0)
                let time = monotonicNanoseconds()
                if count < 0 {
                    if errno == ENOBUFS { state.withLock { $0.overflows += 1 } }
                    if errno == EINTR || errno == ENOBUFS { continue }
                    return
                }
                arrived(RawMessage.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])), at: time)
            }
        }
    }

    private func arrived(_ messages: [RawMessage], at time: UInt64) {
        let matched = state.withLock { state -> Bool in
            guard let match = state.match, state.arrival == nil, time >= state.t0,
                messages.contains(where: match.matches)
            else { return false }
            state.arrival = time
            return true
        }
        if matched { signal.signal() }
    }

    /// Arms the expectation; returns t0, read last, for the caller to send right after.
    func arm(_ match: RawMatch) -> UInt64 {
        state.withLock { state in
            state.match = match
            state.arrival = nil
            state.t0 = monotonicNanoseconds()
            return state.t0
        }
    }

    /// The armed change's latency after t0, or nil if it did not arrive within the timeout.
    func awaitLatency(timeoutNanoseconds: UInt64) -> UInt64? {
        let deadline = monotonicNanoseconds() + timeoutNanoseconds
        while true {
            if let latency = state.withLock({ state in state.arrival.map { $0 - state.t0 } }) { return latency }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(deadline - now)))
        }
    }

    var overflows: Int { state.withLock { $0.overflows } }

    /// Stops hearing changes, so that a later bench in the same process does not wake this thread (see `leaveGroups`).
    func stop() {
        RTNetlink.leaveGroups(fd, RTNetlink.monitorGroups)
    }
}

import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The most clients served at once. Past it a new client is told so (io.pathmond.LimitReached) and closed, instead
/// of waiting unanswered in the accept queue once the descriptors run out; the log says so once per episode.
final class ConnectionLimit: Sendable {
    /// How many clients may be connected at once.
    let maximum: Int
    private let logger: Logger
    private struct State {
        var open = 0
        /// Whether the current episode of refusals has been logged.
        var isRefusing = false
        var refusedInEpisode = 0
    }
    private let state = Mutex(State())

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Takes a place for a new client, or returns false if none is left.
    func admit() -> Bool {
        let (admitted, firstRefusal) = state.withLock { state -> (Bool, Bool) in
            guard state.open >= maximum else {
                state.open += 1
                return (true, false)
            }
            state.refusedInEpisode += 1
            defer { state.isRefusing = true }
            return (false, !state.isRefusing)
        }
        if firstRefusal {
            logger.error("client limit reached: refusing new clients", metadata: ["maximum": "\(maximum)"])
        }
        return admitted
    }

    /// Gives a client's place back. The episode ends once a tenth of the places are free again, so a limit that
    /// is hovered around does not log a line per client.
    func release() {
        let ended = state.withLock { state -> Int? in
            state.open -= 1
            guard state.isRefusing, state.open <= maximum - max(1, maximum / 10) else { return nil }
            defer {
                state.isRefusing = false
                state.refusedInEpisode = 0
            }
            return state.refusedInEpisode
        }
        if let refused = ended {
            logger.notice("accepting new clients again", metadata: ["refused": "\(refused)"])
        }
    }

    /// The number of clients connected now.
    var openCount: Int { state.withLock { $0.open } }

    /// A limit that fits the descriptors this process may open: raises the soft RLIMIT_NOFILE to the hard one
    /// (systemd's default hard limit is high; its soft 1024 exists only for select(2), which nothing here uses),
    /// then keeps `reserve` descriptors for the netlink sockets, files and the listener.
    static func fittingDescriptorLimit(requested: Int, reserve: Int = 64) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return requested }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        // RLIM_INFINITY is all ones, so clamping turns it into Int.max.
        let available = Int(clamping: limit.rlim_cur)
        return max(1, min(requested, available - reserve))
    }
}

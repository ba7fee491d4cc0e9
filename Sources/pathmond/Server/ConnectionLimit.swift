import Locking
// SPDX-License-Identifier: Apache-2.0
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// How many clients are served at once, in total and per user (as dbus-daemon limits connections per user). Past a
/// limit a new client is told so (io.pathmond.LimitReached) and closed, instead of waiting unanswered in the accept
/// queue once the descriptors run out; the log says so once per episode, not once per client. Root is held only to
/// the total, so one user filling their share never locks the administrator out.
final class ConnectionLimit: Sendable {
    /// How many clients may be connected at once.
    let maximum: Int
    /// How many of them one user (other than root) may hold.
    let maximumPerUser: Int
    private let logger: Logger
    private struct State {
        var open = 0
        var openPerUser: [UInt32: Int] = [:]
        /// Whether the current episode of refusals has been logged, per kind of limit.
        var refusingTotal = false
        var refusingUsers: Set<UInt32> = []
    }
    private let state = Locked(State())

    init(maximum: Int, maximumPerUser: Int, logger: Logger) {
        self.maximum = maximum
        self.maximumPerUser = maximumPerUser
        self.logger = logger
    }

    /// Takes a place for a new client of `userID`; nil when admitted, else the sentence the client is told.
    func admit(userID: UInt32) -> String? {
        let (refusal, firstOfEpisode) = state.withLock { state -> (String?, Bool) in
            if state.open >= maximum {
                defer { state.refusingTotal = true }
                return ("pathmond serves at most \(maximum) clients at once", !state.refusingTotal)
            }
            let mine = state.openPerUser[userID, default: 0]
            if userID != 0 && mine >= maximumPerUser {
                let first = state.refusingUsers.insert(userID).inserted
                return ("pathmond serves at most \(maximumPerUser) clients of one user at once", first)
            }
            state.open += 1
            state.openPerUser[userID] = mine + 1
            return (nil, false)
        }
        if let refusal, firstOfEpisode {
            var metadata = JournalRecord.clientLimitReached.metadata([.userID: "\(userID)"])
            metadata["uid"] = "\(userID)"
            metadata["limit"] = "\(refusal)"
            logger.error("client limit reached: refusing new clients", metadata: metadata)
        }
        return refusal
    }

    /// Gives a client's place back. An episode ends once a tenth of the places are free again, so a limit that is
    /// hovered around does not log a line per client.
    func release(userID: UInt32) {
        let ended = state.withLock { state -> Bool in
            state.open -= 1
            let mine = state.openPerUser[userID, default: 1] - 1
            state.openPerUser[userID] = mine > 0 ? mine : nil
            var ended = false
            if state.refusingTotal && state.open <= maximum - max(1, maximum / 10) {
                state.refusingTotal = false
                ended = true
            }
            if state.refusingUsers.contains(userID) && mine <= maximumPerUser - max(1, maximumPerUser / 10) {
                state.refusingUsers.remove(userID)
                ended = true
            }
            return ended
        }
        if ended { logger.notice("accepting new clients again", metadata: ["uid": "\(userID)"]) }
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

// SPDX-License-Identifier: Apache-2.0
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// How many clients are served at once, in total and per user (as dbus-daemon limits connections per user). Past a
/// limit a new client is told so (io.pathmond.LimitReached) and closed, instead of waiting unanswered in the accept
/// queue once the descriptors run out; the log says so once per episode, not once per client. Root is held only to
/// the total, so one user filling their share never locks the administrator out.
///
/// A value the main loop owns (`ClientConnection.Shared` keeps it `LoopBound`): clients are accepted and closed there.
struct ConnectionLimit {
    /// How many clients may be connected at once.
    let maximum: Int
    /// How many of them one user (other than root) may hold.
    let maximumPerUser: Int
    private let logger: Logger
    private var open = 0
    private var openPerUser: [UInt32: Int] = [:]
    /// Whether the current episode of refusals has been logged, per kind of limit.
    private var refusingTotal = false
    private var refusingUsers: Set<UInt32> = []

    init(maximum: Int, maximumPerUser: Int, logger: Logger) {
        self.maximum = maximum
        self.maximumPerUser = maximumPerUser
        self.logger = logger
    }

    /// Takes a place for a new client of `userID`; nil when admitted, else the sentence the client is told.
    mutating func admit(userID: UInt32) -> String? {
        let (refusal, firstOfEpisode) = placeFor(userID)
        if let refusal, firstOfEpisode {
            var metadata = JournalRecord.clientLimitReached.metadata([.userID: "\(userID)"])
            metadata["uid"] = "\(userID)"
            metadata["limit"] = "\(refusal)"
            logger.error("client limit reached: refusing new clients", metadata: metadata)
        }
        return refusal
    }

    /// The refusal, if any, and whether it is the first of its episode.
    private mutating func placeFor(_ userID: UInt32) -> (String?, Bool) {
        if open >= maximum {
            defer { refusingTotal = true }
            return ("pathmond serves at most \(maximum) clients at once", !refusingTotal)
        }
        let mine = openPerUser[userID, default: 0]
        if userID != 0 && mine >= maximumPerUser {
            let first = refusingUsers.insert(userID).inserted
            return ("pathmond serves at most \(maximumPerUser) clients of one user at once", first)
        }
        open += 1
        openPerUser[userID] = mine + 1
        return (nil, false)
    }

    /// Gives a client's place back. An episode ends once a tenth of the places are free again, so a limit that is
    /// hovered around does not log a line per client.
    mutating func release(userID: UInt32) {
        open -= 1
        let mine = openPerUser[userID, default: 1] - 1
        openPerUser[userID] = mine > 0 ? mine : nil
        var ended = false
        if refusingTotal && open <= maximum - max(1, maximum / 10) {
            refusingTotal = false
            ended = true
        }
        if refusingUsers.contains(userID) && mine <= maximumPerUser - max(1, maximumPerUser / 10) {
            refusingUsers.remove(userID)
            ended = true
        }
        if ended { logger.notice("accepting new clients again", metadata: ["uid": "\(userID)"]) }
    }

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

import Locking
// SPDX-License-Identifier: Apache-2.0
import Logging

/// How many distinct things one user may watch at once. Every distinct interest (a path for some parameters, one
/// flow) is evaluated and encoded again on each change, so its cost falls on every other subscriber; clients that
/// watch the same interest share that work and count once. Past the limit a new watch is refused with
/// io.pathmond.LimitReached, logged once per episode. Root is not limited.
final class InterestLimit: Sendable {
    /// How many distinct interests one user (other than root) may hold.
    let maximumPerUser: Int
    private let logger: Logger
    private struct State {
        /// Per user: how many of their subscriptions watch each interest.
        var held: [UInt32: [Interest: Int]] = [:]
        var refusingUsers: Set<UInt32> = []
    }
    private let state = Locked(State())

    init(maximumPerUser: Int, logger: Logger) {
        self.maximumPerUser = maximumPerUser
        self.logger = logger
    }

    /// Takes a place for a subscription of `userID` to `interest`; nil when admitted, else the sentence the client
    /// is told. One the user already watches is always admitted: it costs nothing more.
    func admit(userID: UInt32, interest: Interest) -> String? {
        let (refusal, firstOfEpisode) = state.withLock { state -> (String?, Bool) in
            // Read, then changed in place: a copy of the user's table, changed and stored back, copied all of it
            // for every watch (a thousand flows' subscriptions copied half a million entries).
            let mine = state.held[userID]
            if userID != 0 && mine?[interest] == nil && (mine?.count ?? 0) >= maximumPerUser {
                let first = state.refusingUsers.insert(userID).inserted
                return (
                    "pathmond follows at most \(maximumPerUser) distinct paths and flows of one user at once", first
                )
            }
            state.held[userID, default: [:]][interest, default: 0] += 1
            return (nil, false)
        }
        if let refusal, firstOfEpisode {
            var metadata = JournalRecord.watchLimitReached.metadata([.userID: "\(userID)"])
            metadata["uid"] = "\(userID)"
            metadata["limit"] = "\(refusal)"
            logger.error("watch limit reached: refusing new watches", metadata: metadata)
        }
        return refusal
    }

    /// Gives a subscription's place back; the episode ends once a tenth of the user's places are free again.
    func release(userID: UInt32, interest: Interest) {
        let ended = state.withLock { state -> Bool in
            guard let count = state.held[userID]?[interest] else { return false }
            state.held[userID]?[interest] = count > 1 ? count - 1 : nil
            let remaining = state.held[userID]?.count ?? 0
            if remaining == 0 { state.held[userID] = nil }
            guard state.refusingUsers.contains(userID),
                remaining <= maximumPerUser - max(1, maximumPerUser / 10)
            else { return false }
            state.refusingUsers.remove(userID)
            return true
        }
        if ended { logger.notice("accepting new watches again", metadata: ["uid": "\(userID)"]) }
    }
}

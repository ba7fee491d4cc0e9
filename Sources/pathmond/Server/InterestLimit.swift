// SPDX-License-Identifier: Apache-2.0
import Logging

/// How many distinct things one user may watch at once. Every distinct interest (a path for some parameters, one
/// flow) is evaluated and encoded again on each change, so its cost falls on every other subscriber; clients that
/// watch the same interest share that work and count once. Past the limit a new watch is refused with
/// io.pathmond.LimitReached, logged once per episode. Root is not limited.
///
/// A value the main loop owns (`ClientConnection.Shared` keeps it `LoopBound`): watches start and end there.
struct InterestLimit {
    /// How many distinct interests one user (other than root) may hold.
    let maximumPerUser: Int
    private let logger: Logger
    /// Per user: how many of their subscriptions watch each interest.
    private var held: [UInt32: [Interest: Int]] = [:]
    private var refusingUsers: Set<UInt32> = []

    init(maximumPerUser: Int, logger: Logger) {
        self.maximumPerUser = maximumPerUser
        self.logger = logger
    }

    /// Takes a place for a subscription of `userID` to `interest`; nil when admitted, else the sentence the client
    /// is told. One the user already watches is always admitted: it costs nothing more.
    mutating func admit(userID: UInt32, interest: Interest) -> String? {
        // Read, then changed in place: a copy of the user's table, changed and stored back, copied all of it for
        // every watch (a thousand flows' subscriptions copied half a million entries).
        let mine = held[userID]
        guard userID == 0 || mine?[interest] != nil || (mine?.count ?? 0) < maximumPerUser else {
            let refusal = "pathmond follows at most \(maximumPerUser) distinct paths and flows of one user at once"
            if refusingUsers.insert(userID).inserted {
                var metadata = JournalRecord.watchLimitReached.metadata([.userID: "\(userID)"])
                metadata["uid"] = "\(userID)"
                metadata["limit"] = "\(refusal)"
                logger.error("watch limit reached: refusing new watches", metadata: metadata)
            }
            return refusal
        }
        held[userID, default: [:]][interest, default: 0] += 1
        return nil
    }

    /// Gives a subscription's place back; the episode ends once a tenth of the user's places are free again.
    mutating func release(userID: UInt32, interest: Interest) {
        guard let count = held[userID]?[interest] else { return }
        held[userID]?[interest] = count > 1 ? count - 1 : nil
        let remaining = held[userID]?.count ?? 0
        if remaining == 0 { held[userID] = nil }
        guard refusingUsers.contains(userID), remaining <= maximumPerUser - max(1, maximumPerUser / 10) else {
            return
        }
        refusingUsers.remove(userID)
        logger.notice("accepting new watches again", metadata: ["uid": "\(userID)"])
    }
}

// SPDX-License-Identifier: Apache-2.0
/// What one user's clients may leave unread in pathmond's memory, all connections together, as the per-user client
/// and watch limits bound how many: a user past `maximumPerUser` bytes waiting in replies their clients do not read
/// has those clients no longer read (back-pressure: their calls wait in the socket) until they take their replies.
/// Root is not held to it, so that one user filling their share never keeps the administrator waiting.
///
/// GetHistory replies are not buffered at all (`HistoryReplyCursor` writes from the shared encoding as the socket
/// takes it), so what counts here are the other replies a client leaves unread. A value the main loop owns
/// (`ClientConnection.Shared` keeps it `LoopBound`): every connection counts its output there.
struct OutputBudget {
    /// 16 MiB: every client of one user holding its connection's high watermark would be 256 MiB.
    static let defaultMaximumPerUser = 16 << 20

    let maximumPerUser: Int
    private var buffered: [UInt32: Int] = [:]

    init(maximumPerUser: Int = defaultMaximumPerUser) {
        self.maximumPerUser = maximumPerUser
    }

    /// Adds `change` bytes (negative: taken by the client, or dropped) to what `userID` has waiting; true when the
    /// user is over their share now.
    mutating func add(_ change: Int, for userID: UInt32) -> Bool {
        let total = buffered[userID, default: 0] + change
        buffered[userID] = total > 0 ? total : nil
        return userID != 0 && total > maximumPerUser
    }

    /// Whether `userID` is over their share.
    func isOver(_ userID: UInt32) -> Bool {
        userID != 0 && buffered[userID, default: 0] > maximumPerUser
    }
}

// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import Testing

@testable import pathmond

/// The main loop's limits are plain values: what they admit, refuse and give back, without a daemon.
struct ServerLimitsTests {
    private let logger = Logger(label: "test")

    @Test func aUserPastTheirShareOfUnreadRepliesIsOverUntilTheyTakeThem() {
        var budget = OutputBudget(maximumPerUser: 100)
        /// Whether the user is over their share after the change.
        func isOver(adding change: Int, for userID: UInt32) -> Bool { budget.add(change, for: userID) }
        #expect(!isOver(adding: 60, for: 1000))
        #expect(isOver(adding: 60, for: 1000))
        #expect(budget.isOver(1000))
        // Another user's share is their own, and root has none.
        #expect(!budget.isOver(1001))
        #expect(!isOver(adding: 1000, for: 0))
        #expect(!isOver(adding: -60, for: 1000))
        #expect(!budget.isOver(1000))
    }

    @Test func aUserPastTheirClientsIsRefusedUntilOneLeaves() {
        var limit = ConnectionLimit(maximum: 3, maximumPerUser: 2, logger: logger)
        func admits(_ userID: UInt32) -> Bool { limit.admit(userID: userID) == nil }
        #expect(admits(1000))
        #expect(admits(1000))
        #expect(!admits(1000))
        // Root is held only to the total.
        #expect(admits(0))
        #expect(!admits(0))
        limit.release(userID: 1000)
        #expect(admits(1000))
    }

    @Test func aWatchOfAnInterestTheUserHoldsCostsNothingMore() {
        var limit = InterestLimit(maximumPerUser: 1, logger: logger)
        func admits(_ userID: UInt32, _ parameters: PathParameters) -> Bool {
            limit.admit(userID: userID, interest: .path(parameters)) == nil
        }
        #expect(admits(1000, .unrestricted))
        #expect(admits(1000, .unrestricted))
        #expect(!admits(1000, .system))
        #expect(admits(0, .system))
        // Both watches of the first interest must go before another fits.
        limit.release(userID: 1000, interest: .path(.unrestricted))
        #expect(!admits(1000, .system))
        limit.release(userID: 1000, interest: .path(.unrestricted))
        #expect(admits(1000, .system))
    }
}

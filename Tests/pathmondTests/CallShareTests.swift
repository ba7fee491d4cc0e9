// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

/// A connection's share of calls per turn of the loop: at most `callsPerTurn` in one turn, a full share again in
/// the next, and "spent" only once a call was refused.
@Suite struct CallShareTests {
    @Test func aTurnAnswersAtMostItsShare() {
        var share = CallShare()
        let taken = (0..<100).filter { _ in share.take(in: 7) }.count
        #expect(taken == CallShare.callsPerTurn)
        #expect(share.isSpent)
    }

    @Test func theNextTurnBringsAFullShare() {
        var share = CallShare()
        let first = (0..<CallShare.callsPerTurn).filter { _ in share.take(in: 1) }.count
        #expect(first == CallShare.callsPerTurn)
        #expect(!share.isSpent)
        let oneMore = share.take(in: 1)
        #expect(!oneMore)
        #expect(share.isSpent)
        share.renew()
        #expect(!share.isSpent)
        let taken = (0..<100).filter { _ in share.take(in: 2) }.count
        #expect(taken == CallShare.callsPerTurn)
    }
}

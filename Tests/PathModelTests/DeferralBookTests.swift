// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The deferred runs: one entry per unit in deferral order, repeated skips folded, the cap, forgetting.
@Suite struct DeferralBookTests {
    @Test func threeSkipsGiveOneEntryWithTheFirstTime() {
        var book = DeferralBook()
        for time in [100, 200, 300] as [Int64] { _ = book.register(unit: "a.service", at: time) }
        #expect(book.deferrals == [.init(unit: "a.service", since: 100, skips: 3)])
    }

    @Test func keepsDeferralOrder() {
        var book = DeferralBook()
        for (unit, time) in [("b", 1), ("a", 2), ("b", 3), ("c", 4)] as [(String, Int64)] {
            _ = book.register(unit: unit, at: time)
        }
        #expect(book.deferrals.map(\.unit) == ["b", "a", "c"])
        #expect(book.next?.unit == "b")
        book.remove(unit: "b")
        #expect(book.next?.unit == "a")
    }

    @Test(arguments: [
        (Int64(100), false), (1_209_599, false), (1_209_600, true), (5_000_000, true),
    ])
    func capOfFourteenDays(_ waited: Int64, _ runs: Bool) {
        var book = DeferralBook()
        _ = book.register(unit: "apt-daily.service", at: 1000, maximumDeferral: .seconds(14 * 86_400))
        let outcome = book.register(
            unit: "apt-daily.service", at: 1000 + waited, maximumDeferral: .seconds(14 * 86_400))
        if runs {
            #expect(outcome == .capPassed(.init(unit: "apt-daily.service", since: 1000, skips: 2)))
            #expect(book.deferrals.isEmpty)
        } else {
            #expect(outcome == .deferred(.init(unit: "apt-daily.service", since: 1000, skips: 2)))
            #expect(book.deferrals.count == 1)
        }
    }

    @Test func capOfZeroNeverDefers() {
        var book = DeferralBook()
        let outcome = book.register(unit: "a", at: 5, maximumDeferral: .zero)
        #expect(outcome == .capPassed(.init(unit: "a", since: 5)))
        #expect(book.deferrals.isEmpty)
    }

    @Test func forgettingAnUnknownUnitSaysSo() {
        var book = DeferralBook()
        _ = book.register(unit: "a", at: 1)
        let removedUnknown = book.remove(unit: "b")
        let removedKnown = book.remove(unit: "a")
        #expect(!removedUnknown)
        #expect(removedKnown)
        #expect(book.deferrals.isEmpty)
    }

    @Test func fullBookRefusesNewUnitsButFoldsKnownOnes() {
        var book = DeferralBook(deferrals: (0..<DeferralBook.capacity).map { .init(unit: "u\($0)", since: 1) })
        let new = book.register(unit: "new", at: 2)
        let known = book.register(unit: "u0", at: 2)
        #expect(new == nil)
        #expect(known == .deferred(.init(unit: "u0", since: 1, skips: 2)))
    }

    @Test func loadingDropsRepeatedUnits() {
        let book = DeferralBook(deferrals: [.init(unit: "a", since: 1), .init(unit: "a", since: 2)])
        #expect(book.deferrals == [.init(unit: "a", since: 1)])
    }

    /// A list longer than the capacity (a state file) keeps the oldest units, and a full book refuses new ones.
    @Test func loadingCutsToCapacityKeepingTheOldest() {
        let units = DeferralBook.capacity * 5
        var book = DeferralBook(
            deferrals: (0..<(units * 2)).map { .init(unit: "u\($0 % units)", since: Int64($0)) })
        #expect(book.deferrals.count == DeferralBook.capacity)
        #expect(book.deferrals.first?.unit == "u0")
        #expect(book.deferrals.last?.unit == "u\(DeferralBook.capacity - 1)")
        #expect(book.register(unit: "new", at: 1) == nil)
    }
}

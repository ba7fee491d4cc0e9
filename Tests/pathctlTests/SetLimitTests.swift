// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import pathctl

/// `pathctl set-limit KEY|IFACE SIZE [--cycle] [--warning] | --off`: what the command line makes of its words, and
/// the sentences it refuses with.
@Suite struct SetLimitTests {
    func parse(_ words: [String]) throws -> SetLimit {
        try SetLimit(CommandLineParser.parse(words, as: SetLimit.spec))
    }

    @Test func anInterfaceOrAKeyAndASize() throws {
        let byInterface = try parse(["wwan0", "5GB", "--cycle", "monthly:15", "--warning", "90%"])
        #expect(byInterface.mark.target.interface == "wwan0" && byInterface.mark.target.key == nil)
        #expect(byInterface.limit == DataLimit(bytes: 5_000_000_000, warningPercent: 90, cycle: .monthly(day: 15)))
        let byKey = try parse(["cellular:3f9a0c1b77e2", "1.5GB"])
        #expect(byKey.mark.target.key == "cellular:3f9a0c1b77e2" && byKey.mark.target.interface == nil)
        #expect(byKey.limit == DataLimit(bytes: 1_500_000_000))
        let byOption = try parse(["--key", "wifi:Home", "500MB", "--cycle", "daily"])
        #expect(byOption.mark.target.key == "wifi:Home")
        #expect(byOption.limit == DataLimit(bytes: 500_000_000, cycle: .daily))
        let off = try parse(["wwan0", "--off"])
        #expect(off.mark.off && off.limit == nil)
        #expect(SetLimit.confirmation(nil) == "data limit: none")
        #expect(
            SetLimit.confirmation(byInterface.limit)
                == "data limit: 5.0 GB a cycle (monthly:15), constrained past 90 %, expensive past the limit")
    }

    @Test(arguments: [
        (["wwan0"], "Give the limit's size"), (["wwan0", "5GiB"], "'5GiB' is not a size"),
        (["wwan0", "0"], "'0' is not a size"), (["wwan0", "5GB", "--cycle", "yearly"], "'yearly' is not a cycle"),
        (["wwan0", "5GB", "--warning", "0"], "'0' is not a warning percent"),
        (["wwan0", "5GB", "--warning", "120"], "'120' is not a warning percent"),
        (["wwan0", "5GB", "--off"], "--off clears the limit"),
    ])
    func badWordsAreRefusedWithASentence(words: [String], sentence: String) {
        do {
            _ = try parse(words)
            Issue.record("\(words) was accepted")
        } catch {
            #expect("\(error)".contains(sentence), "\(error)")
        }
    }

    /// A plan that is used up is worth no deferred run, however long it waited: --max-deferral holds only below the
    /// limit, or with --max-deferral-past-limit.
    @Test func maxDeferralWaitsPastAUsedUpLimitUnlessOverridden() {
        #expect(Check.deferralCap("14d", limitUsedUp: false, pastLimit: false) == Int64(14 * 86_400))
        #expect(Check.deferralCap("14d", limitUsedUp: true, pastLimit: false) == nil)
        #expect(Check.deferralCap("14d", limitUsedUp: true, pastLimit: true) == Int64(14 * 86_400))
        #expect(Check.deferralCap(nil, limitUsedUp: false, pastLimit: true) == nil)
    }
}

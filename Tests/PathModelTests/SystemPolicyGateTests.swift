// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The system policy's damping: settle before turning good, grace before turning bad, the first decision after
/// settle, nothing decided while pathmond is away, and a reload that counts from when a change began.
@Suite struct SystemPolicyGateTests {
    typealias Verdict = SystemPolicyGate.Verdict
    static let cheap = Verdict(isOnline: true, isUnmetered: true)
    static let expensive = Verdict(isOnline: true, isUnmetered: false)
    static let offline = Verdict(isOnline: false, isUnmetered: false)
    static let timing = SystemPolicyGate.Timing(settle: .seconds(3), grace: .seconds(30))

    static func seconds(_ value: Double) -> Duration { .milliseconds(Int64(value * 1000)) }

    /// Steps a gate through verdicts at given times, firing its timer whenever it falls due before the next
    /// step, as the dispatcher's loop does; returns each decision with the time it was made.
    static func run(
        _ steps: [(Double, Verdict?)], until end: Double, timing: SystemPolicyGate.Timing = timing
    ) -> [(Duration, SystemPolicyGate.Decision)] {
        var gate = SystemPolicyGate(timing: timing)
        var made: [(Duration, SystemPolicyGate.Decision)] = []
        func fireTimers(before limit: Duration) {
            while let due = gate.nextDecision, due <= limit {
                made += gate.advance(to: due).map { (due, $0) }
            }
        }
        for (time, verdict) in steps {
            fireTimers(before: seconds(time))
            made += gate.observe(verdict, at: seconds(time)).map { (seconds(time), $0) }
        }
        fireTimers(before: seconds(end))
        return made
    }

    @Test func firstDecisionComesAfterSettleEitherWay() {
        for (verdict, expected) in [
            (Self.cheap, [SystemPolicyGate.Decision.online(true), .unmetered(true)]),
            (Self.expensive, [.unmetered(false), .online(true)]), (Self.offline, [.unmetered(false), .online(false)]),
        ] {
            let made = Self.run([(0, verdict)], until: 100)
            #expect(made.map(\.1) == expected)
            #expect(made.allSatisfy { $0.0 == .seconds(3) })
        }
    }

    @Test func turningCheapCountsAfterSettleAndExpensiveAfterGrace() {
        let made = Self.run([(0, Self.cheap), (10, Self.expensive), (50, Self.cheap)], until: 100)
        #expect(made.map(\.0) == [.seconds(3), .seconds(3), .seconds(40), .seconds(53)])
        #expect(made.map(\.1) == [.online(true), .unmetered(true), .unmetered(false), .unmetered(true)])
    }

    @Test(arguments: [1, 2, 20, 100])
    func flipsWithinGraceDoNotTurnExpensive(_ flips: Int) {
        // Expensive for 20 s (longer than the settle time), cheap for 1 s, over and over: never 30 s expensive in
        // a row, so never metered.
        var steps: [(Double, Verdict?)] = [(0, Self.cheap)]
        for flip in 0..<flips {
            steps.append((10 + Double(flip) * 21, Self.expensive))
            steps.append((30 + Double(flip) * 21, Self.cheap))
        }
        let made = Self.run(steps, until: 40 + Double(flips) * 21 + 100)
        #expect(made.map(\.1) == [.online(true), .unmetered(true)])
    }

    @Test func cheapShorterThanSettleDoesNotCount() {
        let made = Self.run([(0, Self.expensive), (10, Self.cheap), (12, Self.expensive), (20, Self.cheap)], until: 22)
        #expect(made.map(\.1) == [.unmetered(false), .online(true)])
    }

    @Test func goingOfflineStopsUnmeteredBeforeOnline() {
        let made = Self.run([(0, Self.cheap), (10, Self.offline)], until: 100)
        #expect(made.suffix(2).map(\.1) == [.unmetered(false), .online(false)])
        #expect(made.suffix(2).allSatisfy { $0.0 == .seconds(40) })
    }

    @Test func unreachableDaemonKeepsTheStateAndForgetsThePendingChange() {
        // Expensive at 10 s, pathmond away from 20 s to 45 s: 30 s of grace never passed with a known verdict.
        let made = Self.run(
            [(0, Self.cheap), (10, Self.expensive), (20, nil), (45, Self.expensive)], until: 74)
        #expect(made.map(\.1) == [.online(true), .unmetered(true)])
        let later = Self.run(
            [(0, Self.cheap), (10, Self.expensive), (20, nil), (45, Self.expensive)], until: 76)
        #expect(later.last?.1 == .unmetered(false))
        #expect(later.last?.0 == .seconds(75))
    }

    @Test func nothingIsDecidedBeforeAnyVerdict() {
        var gate = SystemPolicyGate(timing: Self.timing)
        #expect(gate.observe(nil, at: .zero).isEmpty)
        #expect(gate.nextDecision == nil)
        #expect(gate.isOnline == nil && gate.isUnmetered == nil)
    }

    @Test func reloadCountsFromWhenTheChangeBegan() {
        var gate = SystemPolicyGate(timing: Self.timing)
        _ = gate.observe(Self.cheap, at: .zero)
        _ = gate.advance(to: .seconds(3))
        _ = gate.observe(Self.expensive, at: .seconds(10))
        #expect(gate.nextDecision == .seconds(40))
        // A shorter grace already passed: the decision is made by the reload itself.
        let made = gate.reconfigure(.init(settle: .seconds(1), grace: .seconds(5)), at: .seconds(20))
        #expect(made == [.unmetered(false)])
        #expect(gate.isUnmetered == false)
        #expect(gate.nextDecision == nil)
    }

    @Test(arguments: [0.0, 0.5, 3, 60])
    func settleTimeIsHonoured(_ settle: Double) {
        let timing = SystemPolicyGate.Timing(settle: Self.seconds(settle), grace: .seconds(30))
        let made = Self.run([(0, Self.expensive), (10, Self.cheap)], until: 200, timing: timing)
        #expect(made.last?.1 == .unmetered(true))
        #expect(made.last?.0 == Self.seconds(10 + settle))
    }

    @Test func verdictOfAnOfflinePathIsNeverUnmetered() {
        #expect(Verdict(isOnline: false, isUnmetered: true).isUnmetered == false)
    }
}

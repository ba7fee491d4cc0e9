// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import pathctl

/// `pathctl exec --while`'s decisions, event by event: the command starts when the condition first holds, is
/// paused (or ended and started again) as it stops and starts holding, ends the run with its own status, and gets
/// the signals pathctl gets. Most tests run undamped (settle and grace 0: every change counts at once); the
/// damping is the system policy's, and the last tests hold the run to its default times.
@Suite struct GatedRunTests {
    typealias Event = GatedRun.Event

    static let undamped = SystemPolicyGate.Timing(settle: .zero, grace: .zero)

    private func actions(
        _ mode: GatedRun.Mode, timing: SystemPolicyGate.Timing = undamped, _ events: [Event]
    ) -> [[GatedRun.Action]] {
        var run = GatedRun(mode: mode, timing: timing)
        return events.map { run.handle($0) }
    }

    @Test func pausedWhileTheConditionDoesNotHold() {
        let got = actions(
            .pause,
            [
                .holds(false), .holds(true), .holds(true), .holds(false),
                .holds(false), .holds(true), .exited(status: 0),
            ])
        #expect(got == [[], [.start], [], [.pause], [], [.resume], [.exit(0)]])
    }

    @Test func withStopTheCommandEndsAndStartsAgain() {
        let got = actions(
            .restart,
            [
                .holds(true), .holds(false), .exited(status: 143), .holds(true),
                .exited(status: 3),
            ])
        #expect(got == [[.start], [.terminate], [], [.start], [.exit(3)]])
    }

    @Test func theConditionHoldingAgainBeforeTheCommandEndedStartsItAtOnce() {
        let got = actions(
            .restart,
            [.holds(true), .holds(false), .holds(true), .exited(status: 143)])
        #expect(got == [[.start], [.terminate], [], [.start]])
    }

    @Test func aCommandThatEndsOnItsOwnEndsTheRunWithItsStatus() {
        #expect(actions(.pause, [.holds(true), .exited(status: 7)]) == [[.start], [.exit(7)]])
        #expect(actions(.restart, [.holds(true), .exited(status: 7)]) == [[.start], [.exit(7)]])
    }

    @Test func signalsReachTheCommandAwakeAndTheRunEndsWithIt() {
        #expect(
            actions(
                .pause,
                [
                    .holds(true), .holds(false), .signalled(15), .holds(true),
                    .exited(status: 143),
                ])
                == [[.start], [.pause], [.forward(15), .resume], [], [.exit(143)]])
        #expect(
            actions(.pause, [.holds(true), .signalled(2), .exited(status: 130)]) == [
                [.start], [.forward(2)], [.exit(130)],
            ])
        // Nothing started yet: pathctl ends as a shell would have.
        #expect(actions(.pause, [.holds(false), .signalled(15)]) == [[], [.exit(143)]])
        // Ended by the condition, then a signal: the command's end is the run's.
        #expect(
            actions(.restart, [.holds(true), .holds(false), .signalled(1), .exited(status: 143)])
                == [[.start], [.terminate], [.forward(1)], [.exit(143)]])
    }

    /// With --stop, a command that exits by itself has finished, also when it exits cleanly on pathctl's SIGTERM:
    /// its status is the run's and nothing starts it again. Only a command that SIGTERM ended (143) is restarted.
    @Test(arguments: [Int32(0), 3, 1, 130, 137])
    func withStopACommandThatExitsOnItsOwnHasFinished(status: Int32) {
        #expect(
            actions(.restart, [.holds(true), .holds(false), .exited(status: status)]) == [
                [.start], [.terminate], [.exit(status)],
            ])
        #expect(
            actions(.restart, [.holds(true), .holds(false), .holds(true), .exited(status: status)])
                == [[.start], [.terminate], [], [.exit(status)]])
        #expect(actions(.restart, [.holds(true), .exited(status: status)]) == [[.start], [.exit(status)]])
    }

    /// The default times, the system policy's: the first start after 3 s of holding; a dip shorter than the 30 s
    /// grace (a roam through a hotspot) stops nothing; one that lasts pauses the command once the grace is over,
    /// and it continues 3 s after the path is good again.
    @Test func aDipShorterThanTheGraceStopsNothing() {
        var run = GatedRun(mode: .pause)
        #expect(run.handle(.holds(true, at: .zero)) == [])
        #expect(run.nextDecision == .seconds(3))
        #expect(run.handle(.timer(at: .milliseconds(2999))) == [])
        #expect(run.handle(.timer(at: .seconds(3))) == [.start])
        #expect(run.nextDecision == nil)
        #expect(run.handle(.holds(false, at: .seconds(10))) == [])
        #expect(run.nextDecision == .seconds(40))
        #expect(run.handle(.holds(true, at: .seconds(11))) == [])
        #expect(run.nextDecision == nil)
        #expect(run.handle(.timer(at: .seconds(40))) == [])

        #expect(run.handle(.holds(false, at: .seconds(50))) == [])
        #expect(run.handle(.timer(at: .seconds(79))) == [])
        #expect(run.handle(.timer(at: .seconds(80))) == [.pause])
        #expect(run.handle(.holds(true, at: .seconds(81))) == [])
        #expect(run.handle(.timer(at: .seconds(84))) == [.resume])
    }

    /// The same with --stop: the flap does not end the command; a lasting change ends it once.
    @Test func withStopADipShorterThanTheGraceEndsNothing() {
        let got = actions(
            .restart, timing: .standard,
            [
                .holds(true, at: .zero), .timer(at: .seconds(3)), .holds(false, at: .seconds(5)),
                .holds(true, at: .seconds(6)), .timer(at: .seconds(35)), .holds(false, at: .seconds(40)),
                .timer(at: .seconds(70)), .exited(status: GatedRun.terminatedStatus),
            ])
        #expect(got == [[], [.start], [], [], [], [], [.terminate], []])
    }

    /// Settle and grace are the caller's to set (--settle, --grace).
    @Test func otherTimesAreHonoured() {
        let timing = SystemPolicyGate.Timing(settle: .milliseconds(500), grace: .seconds(2))
        let got = actions(
            .pause, timing: timing,
            [
                .holds(true, at: .zero), .timer(at: .milliseconds(500)), .holds(false, at: .seconds(1)),
                .timer(at: .seconds(3)),
            ])
        #expect(got == [[], [.start], [], [.pause]])
    }

    /// pathmond out of reach: nothing is known, so the command stays as it is, and a change that was waiting to
    /// count waits its whole time again once a path comes.
    @Test func whilePathmondCannotBeReachedTheCommandStaysAsItIs() {
        var run = GatedRun(mode: .pause)
        #expect(run.handle(.holds(true, at: .zero)) == [])
        #expect(run.handle(.timer(at: .seconds(3))) == [.start])
        #expect(run.handle(.holds(false, at: .seconds(10))) == [])
        #expect(run.handle(.condition(holds: nil, at: .seconds(20))) == [])
        #expect(run.nextDecision == nil)
        #expect(run.handle(.timer(at: .seconds(100))) == [])
        #expect(run.handle(.holds(false, at: .seconds(100))) == [])
        #expect(run.handle(.timer(at: .seconds(129))) == [])
        #expect(run.handle(.timer(at: .seconds(130))) == [.pause])
    }
}

extension GatedRun.Event {
    /// The condition holds (or not) for the path pathmond sent at `time`.
    static func holds(_ value: Bool, at time: Duration = .zero) -> Self { .condition(holds: value, at: time) }
}

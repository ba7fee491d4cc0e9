// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathctl

/// `pathctl exec --while`'s decisions, event by event: the command starts when the condition first holds, is
/// paused (or ended and started again) as it stops and starts holding, ends the run with its own status, and gets
/// the signals pathctl gets.
@Suite struct GatedRunTests {
    typealias Event = GatedRun.Event

    private func actions(_ mode: GatedRun.Mode, _ events: [Event]) -> [[GatedRun.Action]] {
        var run = GatedRun(mode: mode)
        return events.map { run.handle($0) }
    }

    @Test func pausedWhileTheConditionDoesNotHold() {
        let got = actions(
            .pause,
            [
                .condition(holds: false), .condition(holds: true), .condition(holds: true), .condition(holds: false),
                .condition(holds: false), .condition(holds: true), .exited(status: 0),
            ])
        #expect(got == [[], [.start], [], [.pause], [], [.resume], [.exit(0)]])
    }

    @Test func withStopTheCommandEndsAndStartsAgain() {
        let got = actions(
            .restart,
            [
                .condition(holds: true), .condition(holds: false), .exited(status: 143), .condition(holds: true),
                .exited(status: 3),
            ])
        #expect(got == [[.start], [.terminate], [], [.start], [.exit(3)]])
    }

    @Test func theConditionHoldingAgainBeforeTheCommandEndedStartsItAtOnce() {
        let got = actions(
            .restart,
            [.condition(holds: true), .condition(holds: false), .condition(holds: true), .exited(status: 143)])
        #expect(got == [[.start], [.terminate], [], [.start]])
    }

    @Test func aCommandThatEndsOnItsOwnEndsTheRunWithItsStatus() {
        #expect(actions(.pause, [.condition(holds: true), .exited(status: 7)]) == [[.start], [.exit(7)]])
        #expect(actions(.restart, [.condition(holds: true), .exited(status: 7)]) == [[.start], [.exit(7)]])
    }

    @Test func signalsReachTheCommandAwakeAndTheRunEndsWithIt() {
        #expect(
            actions(
                .pause,
                [
                    .condition(holds: true), .condition(holds: false), .signalled(15), .condition(holds: true),
                    .exited(status: 143),
                ])
                == [[.start], [.pause], [.forward(15), .resume], [], [.exit(143)]])
        #expect(
            actions(.pause, [.condition(holds: true), .signalled(2), .exited(status: 130)]) == [
                [.start], [.forward(2)], [.exit(130)],
            ])
        // Nothing started yet: pathctl ends as a shell would have.
        #expect(actions(.pause, [.condition(holds: false), .signalled(15)]) == [[], [.exit(143)]])
        // Ended by the condition, then a signal: the command's end is the run's.
        #expect(
            actions(.restart, [.condition(holds: true), .condition(holds: false), .signalled(1), .exited(status: 143)])
                == [[.start], [.terminate], [.forward(1)], [.exit(143)]])
    }
}

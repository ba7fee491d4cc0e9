// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

/// The write-through's decisions, step by step: what pathmond writes to NetworkManager, gives back, and leaves alone.
@Suite struct MeteredWriteThroughTests {
    @Test func writesOnlyWhereNetworkManagerHasNoOpinionAndGivesItBack() {
        var state = MeteredWriteThrough()
        // Off: nothing, whatever pathmond finds.
        #expect(state.decide(enabled: false, wanted: ["eth0"], devices: ["eth0": .guessNo]).isEmpty)
        // On: eth0 is written; wlan0 (already metered in NetworkManager) and usb0 (not NetworkManager's) are not.
        let actions = state.decide(
            enabled: true, wanted: ["eth0", "wlan0", "usb0"], devices: ["eth0": .guessNo, "wlan0": .guessYes])
        #expect(actions == [.write(interface: "eth0")])
        #expect(state.discounted == ["eth0"])
        // While the call is on the way, nothing more is asked.
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo]).isEmpty)
        state.wrote("eth0", original: .unknown, madeChange: true)
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .yes]).isEmpty)
        // pathmond's reason ends: given back, to what it was.
        #expect(
            state.decide(enabled: true, wanted: [], devices: ["eth0": .yes]) == [
                .restore(interface: "eth0", value: .unknown)
            ])
        state.restored("eth0")
        #expect(state.discounted.isEmpty)
    }

    @Test func disablingGivesEverythingBack() {
        var state = MeteredWriteThrough()
        _ = state.decide(enabled: true, wanted: ["eth0", "eth1"], devices: ["eth0": .guessNo, "eth1": .unknown])
        state.wrote("eth0", original: .unknown, madeChange: true)
        state.wrote("eth1", original: .unknown, madeChange: true)
        #expect(state.writtenOriginals == ["eth0": .unknown, "eth1": .unknown])
        let actions = state.decide(enabled: false, wanted: ["eth0", "eth1"], devices: ["eth0": .yes, "eth1": .yes])
        #expect(
            actions == [.restore(interface: "eth0", value: .unknown), .restore(interface: "eth1", value: .unknown)])
    }

    /// A yes or no the user set in NetworkManager is theirs: the write is declined, and not tried again until
    /// pathmond's reason has gone away and come back.
    @Test func aValueSetInNetworkManagerIsLeftAlone() {
        var state = MeteredWriteThrough()
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .no]) == [.write(interface: "eth0")])
        state.wrote("eth0", original: .no, madeChange: false)
        #expect(state.discounted.isEmpty)
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .no]).isEmpty)
        #expect(state.decide(enabled: true, wanted: [], devices: ["eth0": .no]).isEmpty)
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .no]) == [.write(interface: "eth0")])
    }

    /// Once NetworkManager has said yes after the write, a later other value is someone else's (the user's
    /// `nmcli device modify`, a reconnection): pathmond forgets its write instead of fighting or "restoring" it.
    @Test func someoneElsesChangeEndsPathmondsClaim() {
        var state = MeteredWriteThrough()
        _ = state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo])
        state.wrote("eth0", original: .unknown, madeChange: true)
        // Not yet seen as yes: the signal may still be on the way; nothing is concluded.
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo]).isEmpty)
        #expect(state.discounted == ["eth0"])
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .yes]).isEmpty)
        // Reconnected: the profile's unknown again; pathmond's reason stands, so it writes anew.
        #expect(
            state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo]) == [.write(interface: "eth0")])
    }

    @Test func aDeviceNetworkManagerDroppedIsForgotten() {
        var state = MeteredWriteThrough()
        _ = state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo])
        state.wrote("eth0", original: .unknown, madeChange: true)
        #expect(state.decide(enabled: false, wanted: [], devices: [:]).isEmpty)
        #expect(state.writtenOriginals.isEmpty)
    }

    @Test func aFailedWriteWaitsForItsRetryOrTheReasonToReturn() {
        var state = MeteredWriteThrough()
        _ = state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo])
        state.wrote("eth0", original: nil, madeChange: false)
        #expect(state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo]).isEmpty)
        _ = state.decide(enabled: true, wanted: [], devices: ["eth0": .guessNo])
        #expect(state.retryDelay(for: "eth0") == nil, "no reason, nothing to retry")
        #expect(
            state.decide(enabled: true, wanted: ["eth0"], devices: ["eth0": .guessNo]) == [.write(interface: "eth0")])
    }

    /// A refused write (polkit said no: pathmond's rule not there yet, polkitd not running) is tried again after a
    /// wait that doubles up to a minute, with no new reason needed; a value NetworkManager holds itself is not.
    @Test func aRefusedWriteIsTriedAgainAfterItsWait() {
        var state = MeteredWriteThrough()
        let devices: [String: NetworkManagerMetered] = ["eth0": .guessNo, "eth1": .no]
        #expect(state.decide(enabled: true, wanted: ["eth0", "eth1"], devices: devices).count == 2)
        state.wrote("eth0", original: nil, madeChange: false)
        state.wrote("eth1", original: .no, madeChange: false)
        #expect(state.retryDelay(for: "eth0") == .seconds(2))
        #expect(state.retryDelay(for: "eth1") == nil, "NetworkManager's own no is not retried")
        #expect(state.decide(enabled: true, wanted: ["eth0", "eth1"], devices: devices).isEmpty)
        state.retry("eth0")
        state.retry("eth1")
        #expect(state.decide(enabled: true, wanted: ["eth0", "eth1"], devices: devices) == [.write(interface: "eth0")])
        state.wrote("eth0", original: nil, madeChange: false)
        #expect(state.retryDelay(for: "eth0") == .seconds(4), "twice as long after a second refusal in a row")
        for _ in 0..<10 { state.wrote("eth0", original: nil, madeChange: false) }
        #expect(state.retryDelay(for: "eth0") == .seconds(60), "at most a minute apart")
        state.retry("eth0")
        _ = state.decide(enabled: true, wanted: ["eth0"], devices: devices)
        state.wrote("eth0", original: .unknown, madeChange: true)
        #expect(state.retryDelay(for: "eth0") == nil, "written at last: the count starts over")
    }
}

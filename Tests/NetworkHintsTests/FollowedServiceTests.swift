// SPDX-License-Identifier: Apache-2.0
import DBus
import Testing

@testable import NetworkHints

/// What `FollowedService` lets through, signal by signal, and how often it says so.
@Suite struct FollowedServiceTests {
    static let service = "org.freedesktop.NetworkManager"
    static let owner = ":1.3"

    static func properties(from sender: String, to destination: String? = nil) -> BusSignal {
        BusSignal(
            sender: sender, path: "/org/freedesktop/NetworkManager/Devices/1",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", destination: destination,
            body: [])
    }

    static func nameOwnerChanged(from sender: String, to destination: String? = nil, newOwner: String) -> BusSignal {
        BusSignal(
            sender: sender, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", destination: destination,
            body: [.string(service), .string(owner), .string(newOwner)])
    }

    @Test func onlyTheOwnersBroadcastsPass() {
        func refusal(_ signal: BusSignal, owner: String? = Self.owner) -> FollowedService.Refusal? {
            FollowedService.refusal(of: signal, expectedSender: owner)
        }
        #expect(refusal(Self.properties(from: Self.owner)) == nil)
        // A broadcast any user sent: dbus-daemon lets anyone emit one, with any path and interface.
        #expect(refusal(Self.properties(from: ":1.9")) == .notFrom(expectedSender: Self.owner))
        // A unicast, even from the owner: services announce to everyone.
        #expect(refusal(Self.properties(from: ":1.9", to: ":1.4")) == .unicast(destination: ":1.4"))
        #expect(refusal(Self.properties(from: Self.owner, to: ":1.4")) == .unicast(destination: ":1.4"))
        // Nobody owns the name (or GetNameOwner has not answered): nothing passes.
        #expect(refusal(Self.properties(from: Self.owner), owner: nil) == .noOwner)
    }

    @Test func onlyTheBusSaysWhoOwnsAName() {
        func refusal(_ signal: BusSignal) -> FollowedService.Refusal? {
            FollowedService.refusal(of: signal, expectedSender: FollowedService.busName)
        }
        #expect(refusal(Self.nameOwnerChanged(from: "org.freedesktop.DBus", newOwner: "")) == nil)
        // A peer's NameOwnerChanged comes from its unique name, whatever it claims.
        let forged = refusal(Self.nameOwnerChanged(from: ":1.9", newOwner: ":1.9"))
        #expect(forged?.text(service: Self.service) == "not sent by the bus (org.freedesktop.DBus)")
        #expect(refusal(Self.nameOwnerChanged(from: "org.freedesktop.DBus", to: ":1.4", newOwner: "")) != nil)
    }

    @Test func newOwnerFromNameOwnerChanged() {
        let bus = "org.freedesktop.DBus"
        #expect(
            FollowedService.newOwner(in: Self.nameOwnerChanged(from: bus, newOwner: ":1.7"), of: Self.service) == ":1.7"
        )
        #expect(
            FollowedService.newOwner(in: Self.nameOwnerChanged(from: bus, newOwner: ""), of: Self.service) == .some(nil)
        )
        // Another name's change, or an owner that is not a unique name: not a change of this one.
        #expect(FollowedService.newOwner(in: Self.nameOwnerChanged(from: bus, newOwner: ":1.7"), of: "a.b") == nil)
        #expect(
            FollowedService.newOwner(in: Self.nameOwnerChanged(from: bus, newOwner: "a.b"), of: Self.service) == nil)
    }

    @Test func refusalsAreLoggedOnceAMinute() {
        var throttle = LogThrottle(interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(throttle.line("forged", at: start) == "forged")
        #expect(throttle.line("forged", at: start + .seconds(1)) == nil)
        #expect(throttle.line("forged", at: start + .seconds(59)) == nil)
        #expect(
            throttle.line("forged", at: start + .seconds(61)) == "forged (and 2 more like it since the last such line)")
        #expect(throttle.line("forged", at: start + .seconds(122)) == "forged")
    }
}

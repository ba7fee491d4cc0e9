// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Link quality end to end: a veth's negotiated speed from the namespace's sysfs, and a modem's technology and
/// signal from the ModemManager stand-in on a private dbus-daemon.
@Suite(.serialized) struct LinkQualityIntegrationTests {
    @Test func anEthernetLinksSpeedGradesThePath() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        // veth reports 10000 Mb/s, full duplex (drivers/net/veth.c, veth_get_link_ksettings).
        let path = try await scenario.client.log.nextPath { $0.linkQuality != nil }
        #expect(path.linkQuality?.source == .ethernet)
        #expect(path.linkQuality?.speedMbps == 10_000 && path.linkQuality?.isFullDuplex == true)
        #expect(path.linkQualityGrade == .good)
        let status = try runCommand(
            [product("pathctl"), "status", "--no-pager", "--socket", scenario.daemon.socketPath], check: false)
        #expect(status.output.contains("good (10000 Mb/s, full duplex)"), "\(status.output)")
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aModemsTechnologyAndSignalGradeThePath() async throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let scenario = try Scenario.start(
            configuration: "[interface wwan*]\ntype = cellular\n", arguments: ["--system-bus", bus.address]
        ) { namespace in
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 100.64.0.10/24 dev wwan0")
            try namespace.ip("route add default via 100.64.0.1 dev wwan0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let modemManager = try StandInProcess("modemmanager", bus: bus)
        defer { modemManager.stop() }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        // LTE at 60 %.
        try modemManager.send("modem wwan0 356938035643809 8944110068256270054 262011234567890")
        let lte = try await log.nextPath { $0.linkQuality?.source == .modemManager }
        #expect(lte.linkQualityGrade == .good && lte.linkQuality?.signalQualityPercent == 60)
        // EDGE (1 << 4) at 35 %.
        try modemManager.send("radio wwan0 16 35 yes")
        let edge = try await log.nextPath { $0.linkQualityGrade == .minimal }
        #expect(edge.linkQuality?.accessTechnologies == 16)
        // A small move of the signal is not published; a technology change is.
        try modemManager.send("radio wwan0 16 38 yes")
        try modemManager.send("radio wwan0 512 38 yes")
        let hspa = try await log.nextPath { $0.linkQualityGrade == .moderate }
        #expect(hspa.linkQuality?.signalQualityPercent == 38)
        let history = try PathmondConnection(socketPath: scenario.daemon.socketPath).history(PathHistoryQuery(limit: 1))
        #expect(history.last?.cause.detection == "linkQuality", "\(history)")
    }
}

// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import Netlink

/// The station information and the quality events, decoded from bytes in the kernel's own layout.
@Suite struct NL80211StationTests {
    @Test func aStationReplyGivesTheFigures() throws {
        let station = try #require(try NL80211Station.station(in: NL80211StationFixtures.stationReply()))
        #expect(
            station
                == WiFiStation(
                    interfaceIndex: 3, signalAverageDBm: -61, signalDBm: -58, expectedThroughputKbps: 520_000,
                    transmitBitrateKbps: 866_700))
        // The same with NLA_F_NESTED set on STA_INFO, as newer kernels may.
        #expect(try NL80211Station.station(in: NL80211StationFixtures.stationReply(nestedFlag: true)) == station)
    }

    @Test func missingFiguresAreAbsentAndTheOlderRateFieldIsRead() throws {
        let sparse = try #require(
            try NL80211Station.station(
                in: NL80211StationFixtures.stationReply(signal: nil, average: nil, bitrate32: nil, expected: nil)))
        #expect(sparse.signalDBm == nil && sparse.signalAverageDBm == nil && sparse.expectedThroughputKbps == nil)
        #expect(sparse.transmitBitrateKbps == 866_700)
        let noRate = try #require(
            try NL80211Station.station(in: NL80211StationFixtures.stationReply(bitrate32: nil, bitrate16: nil)))
        #expect(noRate.transmitBitrateKbps == nil)
    }

    @Test func otherMessagesAreNotStations() throws {
        #expect(try NL80211Station.station(in: NL80211Fixtures.interfaceReply) == nil)
        #expect(try NL80211Station.station(in: NL80211StationFixtures.signalLow) == nil)
    }

    @Test func aFigureOfTheWrongSizeIsAnError() {
        // SIGNAL_AVG as a u32 instead of a u8.
        let bytes = NL80211Fixtures.message(
            command: 19,
            attributes: [
                (3, NL80211StationFixtures.u32(3)),
                (21, NL80211StationFixtures.nest([(13, NL80211StationFixtures.u32(0xC3))])),
            ])
        #expect(throws: NL80211DecodingError.badAttributeSize(type: 13, size: 4)) {
            try NL80211Station.station(in: bytes)
        }
    }

    @Test func eachQualityEventKind() throws {
        typealias Event = NL80211QualityEvent
        let cases: [([UInt8], Event)] = [
            (
                NL80211StationFixtures.signalLow,
                .changed(interfaceIndex: 3, reason: .signalThreshold(high: false, levelDBm: -78))
            ),
            (
                NL80211StationFixtures.signalHigh,
                .changed(interfaceIndex: 3, reason: .signalThreshold(high: true, levelDBm: nil))
            ),
            (NL80211StationFixtures.beaconLossValue, .changed(interfaceIndex: 3, reason: .beaconLoss)),
            (NL80211StationFixtures.beaconLossFlag, .changed(interfaceIndex: 3, reason: .beaconLoss)),
            (NL80211StationFixtures.packetLoss, .changed(interfaceIndex: 3, reason: .packetLoss(count: 50))),
            (NL80211StationFixtures.roamEvent, .changed(interfaceIndex: 3, reason: .roamed)),
            (NL80211Fixtures.connectEvent, .changed(interfaceIndex: 3, reason: .connected)),
            (NL80211Fixtures.disconnectEvent, .disconnected(interfaceIndex: 3)),
        ]
        for (bytes, expected) in cases { #expect(try NL80211Station.event(in: bytes) == expected) }
        #expect(try NL80211Station.event(in: NL80211Fixtures.interfaceReply) == nil)
    }

    /// The grading of what the station reports, through the model.
    @Test func theFiguresMakeAGrade() throws {
        let station = try #require(try NL80211Station.station(in: NL80211StationFixtures.stationReply()))
        #expect(station.linkQuality.grade == .good)
        let far = try #require(
            try NL80211Station.station(in: NL80211StationFixtures.stationReply(signal: -84, average: -83)))
        #expect(far.linkQuality.grade == .minimal)
    }
}

@Test func nl80211StationDecoderSurvivesMutatedMessages() {
    let seeds = [
        NL80211StationFixtures.stationReply(), NL80211StationFixtures.stationReply(nestedFlag: true),
        NL80211StationFixtures.signalLow, NL80211StationFixtures.beaconLossFlag, NL80211StationFixtures.packetLoss,
        NL80211StationFixtures.roamEvent,
    ]
    // Attribute headers of the nested figures with odd lengths, and the nested flag.
    let words: [[UInt8]] = [
        [0, 0, 21, 0], [4, 0, 21, 0], [0xff, 0xff, 21, 0], [5, 0, 13, 0, 0xc3], [8, 0, 13, 0], [4, 0, 8, 0],
        [8, 0, 5, 0, 0xff, 0xff, 0xff, 0xff], [0, 0x80], [5, 0, 94, 0, 0], [0xff, 0xff, 0xff, 0xff],
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 1024, seed: 0x57A7_1000)
    let report = Fuzz.run("nl80211-station", count: 100_000, mutator: mutator) { input in
        var fitted = input
        if fitted.count >= 4 {
            let length = UInt32(fitted.count)
            for byte in 0..<4 { fitted[byte] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(byte))) }
        }
        var accepted = false
        for bytes in [input, fitted] {
            if (try? NL80211Station.station(in: bytes)) != nil { accepted = true }
            if (try? NL80211Station.event(in: bytes)) != nil { accepted = true }
        }
        return accepted
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

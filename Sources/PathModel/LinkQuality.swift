// SPDX-License-Identifier: Apache-2.0
/// How capable an interface's link layer is, in the four grades Apple's NWPath uses (2025). As Apple says: for
/// tuning initial values (a video's first bitrate, a sync's batch size), never for gating a connection attempt.
public enum LinkQualityGrade: String, Sendable, HashedByCase, CaseIterable, Comparable {
    /// Nothing measured (a virtual link, a figure the driver does not give).
    case unknown
    /// Below a 1080p stream or video call: audio, messaging, standard definition at best.
    case minimal
    /// A 1080p stream or video call fits, with little beside it.
    case moderate
    /// A 4K stream, or several HD calls at once.
    case good

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!  // every case is in allCases
    }

    /// One grade lower (unknown and minimal stay).
    var lowered: Self {
        switch self {
        case .good: return .moderate
        case .moderate, .minimal: return .minimal
        case .unknown: return .unknown
        }
    }
}

/// Where a link's figures came from.
public enum LinkQualitySource: String, Sendable, HashedByCase, CaseIterable {
    /// The negotiated Ethernet speed and duplex (sysfs speed and duplex, as ethtool shows them).
    case ethernet
    /// nl80211's station information of the current association (signal average, expected throughput, tx rate).
    case nl80211
    /// ModemManager's access technology and signal quality.
    case modemManager
}

/// An interface's link figures as its source gave them, and the grade they make. Every figure is optional: drivers
/// and modems report what they can.
public struct LinkQuality: Sendable, Hashable {
    public var source: LinkQualitySource
    /// Ethernet: the negotiated speed in Mbit/s.
    public var speedMbps: UInt32?
    /// Ethernet: full duplex (false: half duplex).
    public var isFullDuplex: Bool?
    /// Wi-Fi: the average signal of the access point's frames, in dBm.
    public var signalDBm: Int32?
    /// Wi-Fi: the driver's expected throughput to the access point, in kbit/s (mac80211's rate control gives it).
    public var expectedThroughputKbps: UInt32?
    /// Wi-Fi: the rate of the last frame sent, in kbit/s.
    public var transmitBitrateKbps: UInt32?
    /// Cellular: ModemManager's MMModemAccessTechnology flags.
    public var accessTechnologies: UInt32?
    /// Cellular: the signal quality in percent.
    public var signalQualityPercent: UInt8?
    /// The grade another pathmond computed (a client reads it from the wire), which wins over this version's
    /// thresholds; nil: computed from the figures.
    public var reportedGrade: LinkQualityGrade?

    public init(
        source: LinkQualitySource, speedMbps: UInt32? = nil, isFullDuplex: Bool? = nil, signalDBm: Int32? = nil,
        expectedThroughputKbps: UInt32? = nil, transmitBitrateKbps: UInt32? = nil, accessTechnologies: UInt32? = nil,
        signalQualityPercent: UInt8? = nil
    ) {
        self.source = source
        self.speedMbps = speedMbps
        self.isFullDuplex = isFullDuplex
        self.signalDBm = signalDBm
        self.expectedThroughputKbps = expectedThroughputKbps
        self.transmitBitrateKbps = transmitBitrateKbps
        self.accessTechnologies = accessTechnologies
        self.signalQualityPercent = signalQualityPercent
    }

    /// The grade the figures make (or the one reported); docs/attributes.md gives the thresholds and their reasons.
    public var grade: LinkQualityGrade {
        if let reportedGrade { return reportedGrade }
        switch source {
        case .ethernet: return ethernetGrade
        case .nl80211: return wifiGrade
        case .modemManager: return cellularGrade
        }
    }

    // Throughput thresholds, in kbit/s: a 4K stream wants 15 to 25 Mbit/s (Netflix, YouTube), a 1080p stream
    // 5 Mbit/s (Netflix) and a 1080p video call about 3.8 Mbit/s each way (Zoom).
    static let goodThroughputKbps: UInt32 = 25_000
    static let moderateThroughputKbps: UInt32 = 5_000

    static func throughputGrade(kbps: UInt32) -> LinkQualityGrade {
        if kbps >= goodThroughputKbps { return .good }
        if kbps >= moderateThroughputKbps { return .moderate }
        return kbps > 0 ? .minimal : .unknown
    }

    private var ethernetGrade: LinkQualityGrade {
        // A virtual link (veth, a bridge) reports whatever it likes; a link without carrier reports nothing (sysfs
        // -1, or the file refuses to be read): unknown.
        guard let speedMbps, speedMbps > 0, speedMbps < 4_000_000 else { return .unknown }
        let grade = Self.throughputGrade(kbps: speedMbps * 1000)
        // Half duplex shares the wire between directions and collides: about half the speed is left.
        return isFullDuplex == false ? grade.lowered : grade
    }

    // Signal thresholds, in dBm: -67 is the level Wi-Fi designs target for voice and video (Cisco's and Apple's
    // enterprise guides); below -80 rates collapse and frames are retried.
    static let goodSignalDBm: Int32 = -67
    static let usableSignalDBm: Int32 = -80

    private var wifiGrade: LinkQualityGrade {
        // The driver's expected throughput already weighs retries; without it, half the last transmit rate is what
        // 802.11n/ac usually deliver of their PHY rate once contention and acknowledgements are paid.
        let throughput = expectedThroughputKbps.flatMap { $0 > 0 ? $0 : nil } ?? transmitBitrateKbps.map { $0 / 2 }
        let signal: LinkQualityGrade? = signalDBm.map {
            $0 >= Self.goodSignalDBm ? .good : $0 >= Self.usableSignalDBm ? .moderate : .minimal
        }
        switch (throughput.map { Self.throughputGrade(kbps: $0) }, signal) {
        case (let rate?, let signal?) where rate != .unknown: return min(rate, signal)
        case (let rate?, nil): return rate
        case (_, let signal?): return signal
        case (nil, nil): return .unknown
        }
    }

    /// MMModemAccessTechnology flags by generation (ModemManager-enums.h).
    static let fastTechnologies: UInt32 = 1 << 14 | 1 << 15  // LTE, 5G NR
    /// UMTS, HSDPA, HSUPA, HSPA, HSPA+, EV-DO (revisions 0, A, B).
    static let mediumTechnologies: UInt32 = 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 11 | 1 << 12 | 1 << 13
    /// GSM, GSM compact, GPRS, EDGE, 1xRTT, LTE Cat-M, NB-IoT.
    static let slowTechnologies: UInt32 = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 10 | 1 << 16 | 1 << 17
    /// Below this a modem shows one bar or none: the cell's rate is far from what the technology offers.
    static let weakSignalPercent: UInt8 = 20

    private var cellularGrade: LinkQualityGrade {
        guard let technologies = accessTechnologies, technologies != 0 else { return .unknown }
        // The best technology in use decides (a modem reports LTE and 5G NR together in non-standalone mode).
        let grade: LinkQualityGrade =
            if technologies & Self.fastTechnologies != 0 {
                .good
            } else if technologies & Self.mediumTechnologies != 0 {
                .moderate
            } else if technologies & Self.slowTechnologies != 0 {
                .minimal
            } else {
                .unknown
            }
        guard let percent = signalQualityPercent else { return grade }
        return percent < Self.weakSignalPercent ? grade.lowered : grade
    }
}

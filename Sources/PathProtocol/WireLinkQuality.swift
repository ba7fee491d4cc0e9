// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.LinkQuality on the wire: the grade, where the figures came from, and the figures the source gave.
public struct WireLinkQuality: Codable, Sendable, Hashable {
    public var grade: String
    public var source: String
    public var speedMbps: UInt32?
    public var fullDuplex: Bool?
    public var signalDBm: Int32?
    public var expectedThroughputKbps: UInt32?
    public var transmitBitrateKbps: UInt32?
    public var accessTechnologies: UInt32?
    public var signalQualityPercent: UInt8?

    public init(_ quality: LinkQuality) {
        grade = quality.grade.rawValue
        source = quality.source.rawValue
        speedMbps = quality.speedMbps
        fullDuplex = quality.isFullDuplex
        signalDBm = quality.signalDBm
        expectedThroughputKbps = quality.expectedThroughputKbps
        transmitBitrateKbps = quality.transmitBitrateKbps
        accessTechnologies = quality.accessTechnologies
        signalQualityPercent = quality.signalQualityPercent
    }

    /// The model value with the server's grade; nil for a source this version does not know (a newer server's),
    /// and a grade it does not know reads as unknown, so that neither breaks a client.
    public var linkQuality: LinkQuality? {
        guard let source = LinkQualitySource(rawValue: source) else { return nil }
        var quality = LinkQuality(
            source: source, speedMbps: speedMbps, isFullDuplex: fullDuplex, signalDBm: signalDBm,
            expectedThroughputKbps: expectedThroughputKbps, transmitBitrateKbps: transmitBitrateKbps,
            accessTechnologies: accessTechnologies, signalQualityPercent: signalQualityPercent)
        quality.reportedGrade = LinkQualityGrade(rawValue: grade) ?? .unknown
        return quality
    }
}

extension StreamedReplyWriter {
    /// A link quality object, keys in sorted order as VarlinkCodec writes them (byte order).
    static func write(_ quality: WireLinkQuality, to out: inout JSONBytes) {
        var separator = "{"
        func number(_ key: String, _ value: (some BinaryInteger)?) {
            guard let value else { return }
            out.raw(separator + "\"" + key + "\":")
            out.raw(String(value))
            separator = ","
        }
        number("accessTechnologies", quality.accessTechnologies)
        number("expectedThroughputKbps", quality.expectedThroughputKbps)
        if let fullDuplex = quality.fullDuplex {
            out.raw(separator + "\"fullDuplex\":")
            out.bool(fullDuplex)
            separator = ","
        }
        out.raw(separator + "\"grade\":")
        out.string(quality.grade)
        separator = ","
        number("signalDBm", quality.signalDBm)
        number("signalQualityPercent", quality.signalQualityPercent)
        out.raw(",\"source\":")
        out.string(quality.source)
        number("speedMbps", quality.speedMbps)
        number("transmitBitrateKbps", quality.transmitBitrateKbps)
        out.raw("}")
    }
}

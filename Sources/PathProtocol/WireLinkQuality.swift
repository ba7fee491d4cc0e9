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
    /// A link quality object, keys in sorted order as VarlinkCodec writes them (byte order). Keys are literals
    /// written as they are: concatenated with their separator, each was a String built per key and per path.
    static func write(_ quality: WireLinkQuality, to out: inout JSONBytes) {
        var separator: StaticString = "{"
        func key(_ name: StaticString) {
            out.raw(separator)
            out.raw(name)
            separator = ","
        }
        func number(_ name: StaticString, _ value: (some BinaryInteger)?) {
            guard let value else { return }
            key(name)
            out.integer(value)
        }
        number("\"accessTechnologies\":", quality.accessTechnologies)
        number("\"expectedThroughputKbps\":", quality.expectedThroughputKbps)
        if let fullDuplex = quality.fullDuplex {
            key("\"fullDuplex\":")
            out.bool(fullDuplex)
        }
        key("\"grade\":")
        out.quoted(quality.grade)
        number("\"signalDBm\":", quality.signalDBm)
        number("\"signalQualityPercent\":", quality.signalQualityPercent)
        key("\"source\":")
        out.quoted(quality.source)
        number("\"speedMbps\":", quality.speedMbps)
        number("\"transmitBitrateKbps\":", quality.transmitBitrateKbps)
        out.raw("}")
    }
}

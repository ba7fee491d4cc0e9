// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// The hand-written encoder of streamed replies must write exactly what JSONEncoder writes through VarlinkCodec:
/// clients (and the GIO module's json-glib) see no difference, and a field added to a wire type but not to the
/// writer fails here.
@Suite struct StreamedReplyWriterTests {
    @Test func pathRepliesMatchTheCodecByteForByte() {
        var random = SplitMix(seed: 0x7061_7468)
        for _ in 0..<2_000 {
            let path = randomPath(&random)
            let continues = random.next() % 2 == 0
            let expected = VarlinkCodec().encodeReply(Methods.PathReply(path: path), continues: continues)
            let written = StreamedReplyWriter.pathReply(path, continues: continues)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            if written != expected { return }
        }
    }

    /// Replies far longer than the writer's first buffer (a kilobyte): grown as they are written, and still the
    /// codec's bytes, whichever piece crosses the end.
    @Test func longRepliesMatchTheCodecByteForByte() {
        var random = SplitMix(seed: 0x6c6f_6e67)
        for count in 10..<40 {
            let path = randomPath(&random, interfaceCount: count)
            let expected = VarlinkCodec().encodeReply(Methods.PathReply(path: path), continues: true)
            #expect(expected.count > 1024)
            let written = StreamedReplyWriter.pathReply(path, continues: true)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            if written != expected { return }
        }
    }

    @Test func flowRepliesMatchTheCodecByteForByte() {
        var random = SplitMix(seed: 0x666c_6f77)
        for _ in 0..<2_000 {
            let status = WireFlowStatus(
                FlowStatus(
                    isViable: random.next() % 2 == 0, betterPathAvailable: random.next() % 2 == 0,
                    betterInterface: random.next() % 2 == 0 ? randomText(&random) : nil,
                    betterInterfaceAddresses: (0..<Int(random.next() % 3)).map { _ in randomAddress(&random) }))
            let expected = VarlinkCodec().encodeReply(Methods.FlowReply(status: status), continues: true)
            let written = StreamedReplyWriter.flowReply(status)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            if written != expected { return }
        }
    }

    func randomPath(_ random: inout SplitMix, interfaceCount: Int? = nil) -> WirePath {
        let interfaces = (0..<(interfaceCount ?? Int(random.next() % 4))).map { _ in
            PathInterface(
                index: Int32(truncatingIfNeeded: random.next()), name: randomText(&random),
                kind: InterfaceKind.allCases[Int(random.next() % UInt64(InterfaceKind.allCases.count))],
                isExpensive: random.next() % 2 == 0, isConstrained: random.next() % 2 == 0)
        }
        let satisfied = random.next() % 2 == 0
        var wire = WirePath(
            Path(
                status: satisfied ? .satisfied : .unsatisfied,
                unsatisfiedReason: satisfied ? nil : .noDefaultRoute, availableInterfaces: interfaces,
                isExpensive: random.next() % 2 == 0, isConstrained: random.next() % 2 == 0,
                supportsIPv4: random.next() % 2 == 0, supportsIPv6: random.next() % 2 == 0,
                supportsDNS: random.next() % 2 == 0,
                gateways: (0..<Int(random.next() % 3)).map { _ in randomAddress(&random) }))
        // Strings the model never makes, to cover escaping: the writer takes any wire value.
        if random.next() % 4 == 0 { wire.status = randomText(&random) }
        // The optional attributes (issue 26) present either way or absent, as from an older server.
        wire.isUltraConstrained = randomFlag(&random)
        wire.isRoaming = randomFlag(&random)
        wire.captivePortal = random.next() % 3 == 0 ? nil : randomText(&random)
        wire.captivePortalURI = random.next() % 2 == 0 ? nil : randomText(&random)
        wire.linkQuality = randomLinkQuality(&random)
        wire.captivePortalAPI = randomPortalAPI(&random)
        wire.dataLimit = randomDataLimit(&random)
        for position in wire.availableInterfaces.indices {
            wire.availableInterfaces[position].dataLimit = randomDataLimit(&random)
            wire.availableInterfaces[position].linkQuality = randomLinkQuality(&random)
            wire.availableInterfaces[position].captivePortal = random.next() % 2 == 0 ? nil : randomText(&random)
            wire.availableInterfaces[position].isRoaming = randomFlag(&random)
            wire.availableInterfaces[position].isUltraConstrained = randomFlag(&random)
            wire.availableInterfaces[position].isTunnel = randomFlag(&random)
        }
        return wire
    }

    /// Absent, or with each count and URL present or absent (RFC 8908's answer).
    private func randomPortalAPI(_ random: inout SplitMix) -> WireCaptivePortalAPI? {
        guard random.next() % 3 != 0 else { return nil }
        var api = WireCaptivePortalAPI(CaptivePortalAPIStatus(isCaptive: random.next() % 2 == 0))
        api.secondsRemaining = random.next() % 2 == 0 ? nil : Int(truncatingIfNeeded: random.next())
        api.bytesRemaining = random.next() % 2 == 0 ? nil : Int(truncatingIfNeeded: random.next())
        api.userPortalURL = random.next() % 2 == 0 ? nil : randomText(&random)
        api.venueInfoURL = random.next() % 2 == 0 ? nil : randomText(&random)
        return api
    }

    /// Absent, or a limit with figures across their range and any text (issue 43).
    private func randomDataLimit(_ random: inout SplitMix) -> WireDataLimit? {
        guard random.next() % 3 != 0 else { return nil }
        let day = CalendarDay(number: 20_000)
        var limit = WireDataLimit(
            DataLimitStatus(limit: DataLimit(bytes: 1 + random.next() / 2), used: random.next(), cycle: day..<day))
        limit.cycle = randomText(&random)
        limit.level = randomText(&random)
        limit.warningPercent = Int(truncatingIfNeeded: random.next())
        return limit
    }

    /// Absent, or with every figure present or absent and across its range.
    private func randomLinkQuality(_ random: inout SplitMix) -> WireLinkQuality? {
        guard random.next() % 3 != 0 else { return nil }
        var quality = WireLinkQuality(LinkQuality(source: .ethernet))
        quality.grade = randomText(&random)
        quality.source = randomText(&random)
        func some<Value: FixedWidthInteger>(_ random: inout SplitMix) -> Value? {
            random.next() % 2 == 0 ? nil : Value(truncatingIfNeeded: random.next())
        }
        quality.speedMbps = some(&random)
        quality.fullDuplex = randomFlag(&random)
        quality.signalDBm = some(&random)
        quality.expectedThroughputKbps = some(&random)
        quality.transmitBitrateKbps = some(&random)
        quality.accessTechnologies = some(&random)
        quality.signalQualityPercent = some(&random)
        return quality
    }

    private func randomFlag(_ random: inout SplitMix) -> Bool? {
        switch random.next() % 3 {
        case 0: return nil
        case 1: return true
        default: return false
        }
    }

    /// Names with what JSON must escape (quotes, backslashes, every control character), slashes, and UTF-8.
    func randomText(_ random: inout SplitMix) -> String {
        let alphabet: [Unicode.Scalar] =
            (0..<0x20).map { Unicode.Scalar(UInt8($0)) } + [
                "\"", "\\", "/", "a", "Z", "0", " ", "é", "€", "🛜", "\u{7f}",
            ]
        let count = Int(random.next() % 12)
        return String(
            String.UnicodeScalarView((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
    }

    func randomAddress(_ random: inout SplitMix) -> IPAddress {
        if random.next() % 2 == 0 {
            return IPAddress("10.\(random.next() % 256).\(random.next() % 256).\(random.next() % 256)")!
        }
        return IPAddress("fe80::\(String(random.next() % 65536, radix: 16))")!
    }
}

/// A small seeded generator: the same inputs on every run.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

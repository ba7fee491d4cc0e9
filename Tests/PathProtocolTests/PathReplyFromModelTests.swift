// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// The hub writes a path's reply from the model (`pathReply(_: Path)`): its bytes must be those of the wire value's
/// writer, which the codec tests hold to JSONEncoder's, for every attribute the model can hold.
extension StreamedReplyWriterTests {
    @Test func pathRepliesFromTheModelMatchTheWireValues() {
        var random = SplitMix(seed: 0x6d6f_6465)
        for round in 0..<2_000 {
            let path = randomModelPath(&random, interfaceCount: round % 50 == 0 ? 30 : Int(random.next() % 4))
            for continues in [true, false] {
                let written = StreamedReplyWriter.pathReply(path, continues: continues)
                let expected = StreamedReplyWriter.pathReply(WirePath(path), continues: continues)
                #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
                if written != expected { return }
            }
        }
    }

    private func randomModelPath(_ random: inout SplitMix, interfaceCount: Int) -> Path {
        func flag() -> Bool { random.next() % 2 == 0 }
        func pick<Value: CaseIterable>(_: Value.Type) -> Value where Value.AllCases: RandomAccessCollection {
            let cases = Value.allCases
            return cases[cases.index(cases.startIndex, offsetBy: Int(random.next() % UInt64(cases.count)))]
        }
        var path = Path(
            status: pick(PathStatus.self), unsatisfiedReason: flag() ? pick(UnsatisfiedReason.self) : nil,
            availableInterfaces: (0..<interfaceCount).map { _ in
                var interface = PathInterface(
                    index: Int32(truncatingIfNeeded: random.next()), name: randomText(&random),
                    kind: pick(InterfaceKind.self), isExpensive: flag(), isConstrained: flag(), isTunnel: flag(),
                    isUltraConstrained: flag(), isRoaming: flag())
                interface.captivePortal = pick(CaptivePortal.self)
                interface.linkQuality = randomModelQuality(&random)
                interface.dataLimit = randomModelLimit(&random)
                return interface
            },
            isExpensive: flag(), isConstrained: flag(), supportsIPv4: flag(), supportsIPv6: flag(),
            supportsDNS: flag(), gateways: (0..<Int(random.next() % 3)).map { _ in randomAddress(&random) },
            isUltraConstrained: flag(), isRoaming: flag())
        path.captivePortal = pick(CaptivePortal.self)
        path.captivePortalURI = flag() ? randomText(&random) : nil
        if random.next() % 3 == 0 {
            path.captivePortalAPI = CaptivePortalAPIStatus(
                isCaptive: flag(), secondsRemaining: flag() ? Int(truncatingIfNeeded: random.next()) : nil,
                bytesRemaining: flag() ? Int(truncatingIfNeeded: random.next()) : nil,
                userPortalURL: flag() ? randomText(&random) : nil, venueInfoURL: flag() ? randomText(&random) : nil)
        }
        path.linkQuality = randomModelQuality(&random)
        path.dataLimit = randomModelLimit(&random)
        return path
    }

    /// Absent, or measured by any source with each figure present or absent.
    private func randomModelQuality(_ random: inout SplitMix) -> LinkQuality? {
        guard random.next() % 3 != 0 else { return nil }
        func some<Value: FixedWidthInteger>() -> Value? {
            random.next() % 2 == 0 ? nil : Value(truncatingIfNeeded: random.next())
        }
        let sources = LinkQualitySource.allCases
        var quality = LinkQuality(
            source: sources[sources.index(sources.startIndex, offsetBy: Int(random.next() % UInt64(sources.count)))],
            speedMbps: some(), isFullDuplex: random.next() % 3 == 0 ? nil : random.next() % 2 == 0,
            signalDBm: some(), expectedThroughputKbps: some(), transmitBitrateKbps: some(),
            accessTechnologies: some(), signalQualityPercent: some())
        if random.next() % 4 == 0 {
            let grades = LinkQualityGrade.allCases
            quality.reportedGrade =
                grades[
                    grades.index(grades.startIndex, offsetBy: Int(random.next() % UInt64(grades.count)))]
        }
        return quality
    }

    /// Absent, or a limit of any size and cycle, used below, near or past it.
    private func randomModelLimit(_ random: inout SplitMix) -> DataLimitStatus? {
        guard random.next() % 3 != 0 else { return nil }
        let cycles: [BillingCycle] = [
            .daily, .monthly(day: 1 + Int(random.next() % 31)), .weekly(weekday: 1 + Int(random.next() % 7)),
        ]
        let limit = DataLimit(
            bytes: 1 + random.next() % (1 << 40), warningPercent: Int(random.next() % 101),
            cycle: cycles[Int(random.next() % 3)])
        let start = CalendarDay(number: 19_000 + Int(random.next() % 2_000))
        return DataLimitStatus(
            limit: limit, used: random.next() % (1 << 41),
            cycle: start..<start.advanced(by: 1 + Int(random.next() % 31)))
    }
}

// SPDX-License-Identifier: Apache-2.0
extension LinkQuality {
    /// Whether `self` differs enough from `old` to publish: every published figure changes the path, which every
    /// client hears and the history records, while a modem's signal or a station's average moves by a point or two
    /// all the time. A new grade, source, technology, speed or duplex always counts; a signal, within 5 dB or 10
    /// percentage points, and a rate, within a fifth, do not.
    public func differsSignificantly(from old: LinkQuality?) -> Bool {
        guard let old else { return true }
        if grade != old.grade || source != old.source || accessTechnologies != old.accessTechnologies
            || speedMbps != old.speedMbps || isFullDuplex != old.isFullDuplex
        {
            return true
        }
        return Self.moved(signalDBm.map(Int64.init), old.signalDBm.map(Int64.init), by: 5)
            || Self.moved(signalQualityPercent.map(Int64.init), old.signalQualityPercent.map(Int64.init), by: 10)
            || Self.movedByAFifth(expectedThroughputKbps, old.expectedThroughputKbps)
            || Self.movedByAFifth(transmitBitrateKbps, old.transmitBitrateKbps)
    }

    private static func moved(_ new: Int64?, _ old: Int64?, by step: Int64) -> Bool {
        switch (new, old) {
        case (let new?, let old?): return abs(new - old) >= step
        case (nil, nil): return false
        default: return true
        }
    }

    private static func movedByAFifth(_ new: UInt32?, _ old: UInt32?) -> Bool {
        switch (new, old) {
        case (let new?, let old?): return abs(Int64(new) - Int64(old)) * 5 >= max(Int64(old), 1)
        case (nil, nil): return false
        default: return true
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

extension PolicyFile {
    /// `{"bytes": N, "warningPercent": P, "cycle": "monthly:1"}`: the limit as the file keeps it.
    static func encodeLimit(_ limit: DataLimit) -> String {
        "{\"bytes\": \(limit.bytes), \"warningPercent\": \(limit.warningPercent), "
            + "\"cycle\": \(quote(limit.cycle.description))}"
    }

    /// The optional data limit: an object with a whole positive `bytes`, a `warningPercent` of 1 to 100 and a cycle
    /// `BillingCycle` reads; null or absent (files written before limits had none) is no limit. Anything else is
    /// damage, as for the other fields: a limit half read would meter a plan wrongly.
    static func dataLimit(of entry: JSONValue, index: Int, key: NetworkKey) throws(PolicyFileError) -> DataLimit? {
        let values = entry.members(named: "dataLimit")
        guard values.count <= 1 else {
            throw .badEntry(index: index, reason: "\"dataLimit\" of \(key) is given more than once")
        }
        guard let value = values.first, value != .null else { return nil }
        func bad(_ reason: String) -> PolicyFileError {
            .badEntry(index: index, reason: "\"dataLimit\" of \(key) \(reason)")
        }
        guard case .object = value else { throw bad("is \(value.typeName), not an object") }
        func single(_ name: String) throws(PolicyFileError) -> JSONValue {
            let found = value.members(named: name)
            guard found.count == 1 else { throw bad("has no single \"\(name)\"") }
            return found[0]
        }
        guard case .number(let bytesText) = try single("bytes"), let bytes = UInt64(bytesText), bytes > 0 else {
            throw bad("has no whole positive \"bytes\"")
        }
        guard case .number(let percentText) = try single("warningPercent"), let percent = Int(percentText),
            (1...100).contains(percent)
        else { throw bad("has no \"warningPercent\" from 1 to 100") }
        guard case .string(let cycleText) = try single("cycle"), let cycle = BillingCycle(cycleText) else {
            throw bad("has no \"cycle\" of monthly:DAY, weekly:DAY or daily")
        }
        return DataLimit(bytes: bytes, warningPercent: percent, cycle: cycle)
    }
}

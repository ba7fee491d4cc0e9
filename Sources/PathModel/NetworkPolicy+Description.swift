// SPDX-License-Identifier: Apache-2.0
/// A network's settings as a log line shows them: "constrained: yes, expensive: detection, name: \"Office\"". Each
/// setting is named, and one left to detection says so, rather than Swift's `Optional(true)`.
extension NetworkPolicy: CustomStringConvertible {
    public var description: String {
        func word(_ value: Bool?, unset: String) -> String {
            switch value {
            case true?: return "yes"
            case false?: return "no"
            case nil: return unset
            }
        }
        let name = name.map { "\"" + $0 + "\"" } ?? "none"
        return
            "constrained: \(word(isConstrained, unset: "not set")), expensive: \(word(isExpensive, unset: "detection")),"
            + " name: \(name)" + (dataLimit.map { ", data limit: \($0.bytes) bytes \($0.cycle)" } ?? "")
    }
}

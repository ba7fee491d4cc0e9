// SPDX-License-Identifier: Apache-2.0
// The `[captive-portal]` section: whether pathmond asks a network's captive-portal API (RFC 8908) itself.

extension ConfigurationParser {
    /// Applies one `key = value` line of `[captive-portal]`: `check-api`, a boolean.
    mutating func setCaptivePortal(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        let flag = try boolean(
            named: "check-api", in: "captive-portal", key: key, value: value, line: line, keyLines: &keyLines)
        if let flag { captivePortalCheckAPI = flag }
    }

    /// The value of `name`, a boolean key of `section`, once; nil (with a warning) when `key` is another key.
    mutating func boolean(
        named name: String, in section: String, key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) -> Bool? {
        guard key == name else {
            warn(.unknownKey(line: line, section: section, key: key))
            return nil
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        keyLines[key] = line
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw .invalidBoolean(line: line, key: key, value: value)
        }
    }
}

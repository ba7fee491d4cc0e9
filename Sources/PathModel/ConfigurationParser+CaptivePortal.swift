// SPDX-License-Identifier: Apache-2.0
// The `[captive-portal]` section: whether pathmond asks a network's captive-portal API (RFC 8908) itself.

extension ConfigurationParser {
    /// Applies one `key = value` line of `[captive-portal]`: `check-api`, a boolean.
    mutating func setCaptivePortal(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "check-api" else {
            warn(.unknownKey(line: line, section: "captive-portal", key: key))
            return
        }
        if let firstLine = keyLines[key] { throw .duplicateKey(line: line, key: key, firstLine: firstLine) }
        guard !value.isEmpty else { throw .missingValue(line: line, key: key) }
        switch value.lowercased() {
        case "true", "yes", "1": captivePortalCheckAPI = true
        case "false", "no", "0": captivePortalCheckAPI = false
        default: throw .invalidBoolean(line: line, key: key, value: value)
        }
        keyLines[key] = line
    }
}

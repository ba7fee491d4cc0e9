// SPDX-License-Identifier: Apache-2.0
// The `[connectivity]` section: pathmond's own connectivity check (an HTTP request per interface).

extension ConfigurationParser {
    /// Applies one `key = value` line of `[connectivity]`: `enabled`, `uri`, `response`, `interval`.
    mutating func setConnectivity(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        switch key {
        case "enabled":
            let flag = try boolean(
                named: "enabled", in: "connectivity", key: key, value: value, line: line, keyLines: &keyLines)
            if let flag { connectivity.enabled = flag }
            return
        case "uri", "response", "interval": break
        default:
            warn(.unknownKey(line: line, section: "connectivity", key: key))
            return
        }
        if let firstLine = keyLines[key] { throw .duplicateKey(line: line, key: key, firstLine: firstLine) }
        switch key {
        case "uri":
            guard !value.isEmpty else { throw .missingValue(line: line, key: key) }
            guard ConnectivityCheckSettings.isValidURI(value) else {
                throw .invalidValue(
                    line: line, key: key, value: value,
                    expected: "an http:// or https:// URL of at most 2048 characters, without spaces")
            }
            connectivity.uri = value
        case "response":
            // Empty is a value: the answer must then be HTTP 204, as Android's generate_204 answers.
            guard value.utf8.count <= ConnectivityCheckSettings.maximumResponseLength,
                value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
            else {
                throw .invalidValue(
                    line: line, key: key, value: value,
                    expected: "one line of text of at most 1024 bytes (empty: the answer must be HTTP 204)")
            }
            connectivity.response = value
        default:
            guard !value.isEmpty else { throw .missingValue(line: line, key: key) }
            guard let interval = TimeSpan.parse(value), ConnectivityCheckSettings.intervals.contains(interval) else {
                throw .invalidValue(
                    line: line, key: key, value: value, expected: "a duration from 1s to 1d, e.g. 300s or 5min")
            }
            connectivity.interval = interval
        }
        keyLines[key] = line
    }
}

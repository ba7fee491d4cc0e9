// SPDX-License-Identifier: Apache-2.0
// The `[networkmanager]` section: whether pathmond writes its verdicts through to NetworkManager.

extension ConfigurationParser {
    /// Applies one `key = value` line of `[networkmanager]`: `write-metered`, a boolean.
    mutating func setNetworkManager(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "write-metered" else {
            warn(.unknownKey(line: line, section: "networkmanager", key: key))
            return
        }
        if let firstLine = keyLines[key] { throw .duplicateKey(line: line, key: key, firstLine: firstLine) }
        guard !value.isEmpty else { throw .missingValue(line: line, key: key) }
        switch value.lowercased() {
        case "true", "yes", "1": networkManagerWriteMetered = true
        case "false", "no", "0": networkManagerWriteMetered = false
        default: throw .invalidBoolean(line: line, key: key, value: value)
        }
        keyLines[key] = line
    }
}

// SPDX-License-Identifier: Apache-2.0
// The `[networkmanager]` section: whether pathmond writes its verdicts through to NetworkManager.

extension ConfigurationParser {
    /// Applies one `key = value` line of `[networkmanager]`: `write-metered`, a boolean.
    mutating func setNetworkManager(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        let flag = try boolean(
            named: "write-metered", in: "networkmanager", key: key, value: value, line: line, keyLines: &keyLines)
        if let flag { networkManagerWriteMetered = flag }
    }
}

// SPDX-License-Identifier: Apache-2.0
import StateFiles

/// Why the usage file was not read. A damaged file is kept aside and the daemon counts from nothing: usage is a
/// record, not a setting, so losing it never keeps pathmond from serving.
enum UsageFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read (not a regular file, too large, a system error).
    case unreadable(StateFileReader.Refusal)
    /// Not the JSON of a usage file: what the decoder said.
    case malformed(String)
    /// Written by a newer pathmond: left untouched, and this run's usage is not saved over it.
    case newerVersion(Int)
    /// An entry names a network key that does not parse.
    case invalidNetworkKey(String)
    /// An entry names a day that is not YYYY-MM-DD.
    case invalidDay(String)

    var description: String {
        switch self {
        case .unreadable(let refusal): "unreadable: \(refusal)"
        case .malformed(let reason): "not a usage file: \(reason)"
        case .newerVersion(let version): "written by a newer pathmond (version \(version))"
        case .invalidNetworkKey(let key): "an unknown network key \"\(key)\""
        case .invalidDay(let day): "a day that is not YYYY-MM-DD: \"\(day)\""
        }
    }
}

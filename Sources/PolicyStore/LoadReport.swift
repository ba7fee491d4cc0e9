// SPDX-License-Identifier: Apache-2.0
/// What went wrong with the policy file at load, for the daemon's log and `pathctl status`. There is no report
/// when the file was missing or whole.
public struct LoadReport: Sendable, Hashable, CustomStringConvertible {
    /// The kind of trouble.
    public enum Problem: Sendable, Hashable {
        /// The contents are damaged: not JSON, not a policy file, or some entries unusable.
        case damaged
        /// The file could not be read at all: the system's error number.
        case unreadable(errno: Int32)
        /// Written by a newer pathmond in a format this one does not read: left untouched, changes refused.
        case newerVersion(Int)
        /// Not a regular file (a symbolic link, FIFO, directory or device): not read at all.
        case notRegularFile
        /// Larger than any policy file pathmond writes: not read at all.
        case tooLarge
    }

    /// The policy file: `<state directory>/policy.json`.
    public var path: String
    /// The kind of trouble.
    public var problem: Problem
    /// The first and main reason, as a sentence.
    public var reason: String
    /// Every problem found, entry by entry; `reason` comes first.
    public var details: [String]
    /// Where the original file now is, byte for byte; nil when it stays at `path`.
    public var keptAsidePath: String?
    /// Why it could not be kept aside, when it should have been.
    public var keepAsideFailure: PolicyStoreError?
    /// How many networks were read from the file and are in force.
    public var recoveredNetworks: Int

    /// Whether saving is refused for now: the file at `path` is one this pathmond must not overwrite.
    public var isReadOnly: Bool { keptAsidePath == nil }

    public var description: String {
        var text = "\(path): \(reason)."
        switch problem {
        case .newerVersion:
            text += " It is left untouched and policy changes will not be saved until pathmond is upgraded or the"
            text += " file is moved away; no network settings are in force."
            return text
        case .damaged, .unreadable, .notRegularFile, .tooLarge:
            break
        }
        if let keptAsidePath {
            text += " The original was kept aside as \(keptAsidePath)."
        } else if let keepAsideFailure {
            text +=
                " It could not be kept aside (\(keepAsideFailure)); policy changes will not be saved until it can be."
        }
        let count = recoveredNetworks == 1 ? "1 network was" : "\(recoveredNetworks) networks were"
        text += " \(count) recovered from it."
        if details.count > 1 {
            text += " Also: " + details.dropFirst().joined(separator: "; ") + "."
        }
        return text
    }
}

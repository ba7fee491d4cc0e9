// SPDX-License-Identifier: Apache-2.0
/// Why bytes could not be read as a policy file.
public enum PolicyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not JSON: the reason, and the offset of the byte where reading stopped.
    case notJSON(offset: Int, reason: String)
    /// JSON, but not shaped like a policy file (no version, no list of networks, …).
    case notPolicyFile(reason: String)
    /// Written by a newer pathmond, in a format this one does not understand. Never to be overwritten.
    case newerVersion(Int)
    /// One entry of the network list is unusable: its position (from 0) and why.
    case badEntry(index: Int, reason: String)

    public var description: String {
        switch self {
        case .notJSON(let offset, let reason):
            return "the policy file is not valid JSON at byte \(offset): \(reason)"
        case .notPolicyFile(let reason):
            return "the file is not a pathmond policy file: \(reason)"
        case .newerVersion(let version):
            return "the policy file has format version \(version), written by a newer pathmond; "
                + "this one reads version \(PolicyFile.currentVersion) only"
        case .badEntry(let index, let reason):
            return "network entry \(index + 1) of the policy file is unusable: \(reason)"
        }
    }
}

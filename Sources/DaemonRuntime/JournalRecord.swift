// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel

/// The kinds of log record a fleet filters on, each with its fixed 128-bit MESSAGE_ID (generated once, never
/// changed: `journalctl MESSAGE_ID=…` and the catalog, /usr/lib/systemd/catalog/pathmond.catalog, rely on them).
/// A call site passes `record.metadata(...)` as the log line's metadata; the journal handler turns its keys into
/// fields, and the stderr handler leaves them out (the message text says it all for a person).
package enum JournalRecord: String, CaseIterable, Sendable {
    /// The system path changed (status, interfaces, expensive, constrained).
    case pathChanged
    /// The user changed or forgot a network's settings (SetExpensive, SetConstrained, ForgetNetwork).
    case policyChanged
    /// The configuration file was refused: at start (pathmond exits 78) or on reload (the previous one stays).
    case configurationRefused
    /// The configuration file was reloaded.
    case configurationReloaded
    /// The policy file was damaged or unreadable; what could be salvaged is in force.
    case policyFileDamaged
    /// New clients are refused: the total or one user's limit of connections.
    case clientLimitReached
    /// New watches are refused: one user's limit of distinct paths and flows.
    case watchLimitReached
    /// Kernel notifications were lost (or a dump interrupted): the kernel's tables were read again.
    case resync
    /// NetworkManager's connection was set metered (or restored) to follow pathmond's verdict.
    case meteredWrittenThrough
    /// The usage file was damaged or unreadable: kept aside, usage counted from nothing.
    case usageFileDamaged
    /// A network's usage this cycle passed its data limit's warning: the path on it is constrained.
    case dataLimitWarning
    /// A network's usage this cycle passed its data limit: the path on it is also expensive.
    case dataLimitReached

    /// The MESSAGE_ID, as `systemd-id128 new` prints it (32 lowercase hex digits).
    package var messageID: String {
        switch self {
        case .pathChanged: "b5af785cefbf499ba90b67d62c2e7983"
        case .policyChanged: "d3e7cca7d5a740a6bba0c2fc7ba642e7"
        case .configurationRefused: "29ec4136c0a74b7fb05a275beda00ee2"
        case .configurationReloaded: "640df6e4f54642dfbad1aaf80ff47dc0"
        case .policyFileDamaged: "a18d3132c6bd48fa9fa590ea0fcae784"
        case .clientLimitReached: "b7bf2586288e4f4c99fc8fa0e2a3797e"
        case .watchLimitReached: "7b97d842ac5c40d1a34bf774f631d976"
        case .resync: "aa800737530b45e6a91ea1c9f8a77b86"
        case .meteredWrittenThrough: "f969f1ad57a546c08e613dc1b9c7ac99"
        case .usageFileDamaged: "8f605a93134e462eb4282db7fd9cd8ff"
        case .dataLimitWarning: "b6c92994abf64e6ea94b63d20b3cccce"
        case .dataLimitReached: "16e6fc98f819400ebd61d6e73931b28b"
        }
    }

    /// `MESSAGE_ID=` and the ID, as the journal takes the field: constant text, sent as it is with every record
    /// (the tests check it against `messageID`).
    package var messageIDField: StaticString {
        switch self {
        case .pathChanged: "MESSAGE_ID=b5af785cefbf499ba90b67d62c2e7983"
        case .policyChanged: "MESSAGE_ID=d3e7cca7d5a740a6bba0c2fc7ba642e7"
        case .configurationRefused: "MESSAGE_ID=29ec4136c0a74b7fb05a275beda00ee2"
        case .configurationReloaded: "MESSAGE_ID=640df6e4f54642dfbad1aaf80ff47dc0"
        case .policyFileDamaged: "MESSAGE_ID=a18d3132c6bd48fa9fa590ea0fcae784"
        case .clientLimitReached: "MESSAGE_ID=b7bf2586288e4f4c99fc8fa0e2a3797e"
        case .watchLimitReached: "MESSAGE_ID=7b97d842ac5c40d1a34bf774f631d976"
        case .resync: "MESSAGE_ID=aa800737530b45e6a91ea1c9f8a77b86"
        case .meteredWrittenThrough: "MESSAGE_ID=f969f1ad57a546c08e613dc1b9c7ac99"
        case .usageFileDamaged: "MESSAGE_ID=8f605a93134e462eb4282db7fd9cd8ff"
        case .dataLimitWarning: "MESSAGE_ID=b6c92994abf64e6ea94b63d20b3cccce"
        case .dataLimitReached: "MESSAGE_ID=16e6fc98f819400ebd61d6e73931b28b"
        }
    }

    /// What pathmond's own fields hold, named as in the journal.
    package enum Field: String, CaseIterable, Sendable {
        case status = "PATHMOND_STATUS"
        case expensive = "PATHMOND_EXPENSIVE"
        case constrained = "PATHMOND_CONSTRAINED"
        /// One of `PathChangeCause.Kind`'s names: kernel, resync, policy, detection, resolver, configuration, unspecified.
        case cause = "PATHMOND_CAUSE"
        /// The network key a policy record concerns.
        case network = "PATHMOND_NETWORK"
        /// systemd-networkd's field name for the interface a record concerns.
        case interface = "INTERFACE"
        /// systemd's own names for a configuration file and line (log_syntax).
        case configFile = "CONFIG_FILE"
        case configLine = "CONFIG_LINE"
        /// The user a limit refused.
        case userID = "PATHMOND_UID"
        /// NetworkManager's connection.metered before and after pathmond wrote or gave it back.
        case networkManagerBefore = "PATHMOND_NM_METERED_BEFORE"
        case networkManagerAfter = "PATHMOND_NM_METERED_AFTER"
    }

    /// The metadata that makes a log line this record: its MESSAGE_ID and the fields given (nil ones left out).
    package func metadata(_ fields: KeyValuePairs<Field, String?> = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = Dictionary(minimumCapacity: fields.count + 3)
        metadata["MESSAGE_ID"] = .string(messageID)
        for (field, value) in fields {
            if let value { metadata[field.rawValue] = .string(value) }
        }
        return metadata
    }

    /// A flag as systemd writes one in its own fields.
    package static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// A network setting: yes, no, or auto (left to pathmond's detection).
    package static func yesNoAuto(_ value: Bool?) -> String { value.map(yesNo) ?? "auto" }
}

extension JournalRecord.Field {
    /// The field's name as constant bytes (`rawValue`, which a record's writer copies without making a String).
    package var name: StaticString {
        switch self {
        case .status: "PATHMOND_STATUS"
        case .expensive: "PATHMOND_EXPENSIVE"
        case .constrained: "PATHMOND_CONSTRAINED"
        case .cause: "PATHMOND_CAUSE"
        case .network: "PATHMOND_NETWORK"
        case .interface: "INTERFACE"
        case .configFile: "CONFIG_FILE"
        case .configLine: "CONFIG_LINE"
        case .userID: "PATHMOND_UID"
        case .networkManagerBefore: "PATHMOND_NM_METERED_BEFORE"
        case .networkManagerAfter: "PATHMOND_NM_METERED_AFTER"
        }
    }
}

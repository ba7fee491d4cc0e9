// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.HistoryEntry on the wire; also one line of the history file in the state directory.
public struct WireHistoryEntry: Codable, Sendable, Hashable {
    public var sequence: UInt64
    /// Wall-clock time in microseconds since the Unix epoch (journald's __REALTIME_TIMESTAMP).
    public var realtimeUsec: Int64
    /// CLOCK_MONOTONIC in microseconds (journald's __MONOTONIC_TIMESTAMP), meaningful within `bootID`.
    public var monotonicUsec: UInt64
    public var bootID: String
    public var before: WirePathSummary
    public var after: WirePathSummary
    public var cause: WireChangeCause

    public init(_ entry: PathHistoryEntry) {
        sequence = entry.sequence
        realtimeUsec = entry.wallMicroseconds
        monotonicUsec = entry.monotonicMicroseconds
        bootID = entry.bootID
        before = WirePathSummary(entry.before)
        after = WirePathSummary(entry.after)
        cause = WireChangeCause(entry.cause)
    }

    /// The model value; throws if a field holds a value the protocol does not define.
    public func entry() throws(WireFormatError) -> PathHistoryEntry {
        PathHistoryEntry(
            sequence: sequence, wallMicroseconds: realtimeUsec, monotonicMicroseconds: monotonicUsec,
            bootID: bootID, before: try before.summary(), after: try after.summary(), cause: try cause.cause())
    }
}

/// io.pathmond.PathSummary on the wire.
public struct WirePathSummary: Codable, Sendable, Hashable {
    public var status: String
    public var unsatisfiedReason: String?
    public var interfaces: [String]
    public var isExpensive: Bool
    public var isConstrained: Bool
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool

    public init(_ summary: PathSummary) {
        status = summary.status.rawValue
        unsatisfiedReason = summary.unsatisfiedReason?.rawValue
        interfaces = summary.interfaces
        isExpensive = summary.isExpensive
        isConstrained = summary.isConstrained
        supportsIPv4 = summary.supportsIPv4
        supportsIPv6 = summary.supportsIPv6
    }

    public func summary() throws(WireFormatError) -> PathSummary {
        guard let status = PathStatus(rawValue: status) else { throw .unknownValue(field: "status", value: status) }
        var reason: UnsatisfiedReason?
        if let unsatisfiedReason {
            guard let known = UnsatisfiedReason(rawValue: unsatisfiedReason) else {
                throw .unknownValue(field: "unsatisfiedReason", value: unsatisfiedReason)
            }
            reason = known
        }
        return PathSummary(
            status: status, unsatisfiedReason: reason, interfaces: interfaces, isExpensive: isExpensive,
            isConstrained: isConstrained, supportsIPv4: supportsIPv4, supportsIPv6: supportsIPv6)
    }
}

/// io.pathmond.ChangeCause on the wire: the fields, and `description`, the same in words.
public struct WireChangeCause: Codable, Sendable, Hashable {
    public var kind: String
    public var kernelTables: [String]?
    public var interfaces: [String]
    public var detection: String?
    public var network: String?
    public var uid: UInt32?
    public var detail: String?
    public var description: String

    public init(_ cause: PathChangeCause) {
        kind = cause.kind.rawValue
        kernelTables = cause.kernelTables.isEmpty ? nil : cause.kernelTables.map(\.rawValue)
        interfaces = cause.interfaces
        detection = cause.detection?.rawValue
        network = cause.network
        uid = cause.userID
        detail = cause.detail
        description = cause.description
    }

    public func cause() throws(WireFormatError) -> PathChangeCause {
        guard let kind = PathChangeCause.Kind(rawValue: kind) else { throw .unknownValue(field: "kind", value: kind) }
        var tables: [PathChangeCause.KernelTable] = []
        for name in kernelTables ?? [] {
            guard let table = PathChangeCause.KernelTable(rawValue: name) else {
                throw .unknownValue(field: "kernelTables", value: name)
            }
            tables.append(table)
        }
        var found: PathChangeCause.Detection?
        if let detection {
            guard let known = PathChangeCause.Detection(rawValue: detection) else {
                throw .unknownValue(field: "detection", value: detection)
            }
            found = known
        }
        // Indices are the daemon's business; the names are what was recorded.
        return PathChangeCause(
            kind: kind, kernelTables: tables, interfaceIndices: [], interfaces: interfaces, detection: found,
            network: network, userID: uid, detail: detail)
    }
}

extension Methods {
    /// io.pathmond.GetHistory parameters: every filter optional.
    public struct HistoryParameters: Codable, Sendable, Hashable {
        /// Only entries at or after this wall time, microseconds since the epoch.
        public var since: Int64?
        /// Only entries that concern this interface.
        public var interface: String?
        /// At most this many stored entries, the newest.
        public var limit: Int?

        public init(since: Int64? = nil, interface: String? = nil, limit: Int? = nil) {
            self.since = since
            self.interface = interface
            self.limit = limit
        }

        /// The query these parameters describe.
        public var query: PathHistoryQuery {
            PathHistoryQuery(sinceWallMicroseconds: since, interface: interface, limit: limit)
        }
    }

    /// io.pathmond.GetHistory reply: stored entries, oldest first (one reply); with "more", then one reply per new
    /// entry.
    public struct HistoryReply: Codable, Sendable, Hashable {
        public var entries: [WireHistoryEntry]
        /// True when older entries the query selects were left out: the reply holds the newest that fit in one
        /// message (`VarlinkCodec.maximumReplySize`). Absent otherwise.
        public var truncated: Bool?
        public init(entries: [WireHistoryEntry], truncated: Bool? = nil) {
            self.entries = entries
            self.truncated = truncated
        }
    }
}

import Locking
// SPDX-License-Identifier: Apache-2.0
import PathModel
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The user's network policy on disk: `<stateDirectory>/policy.json`, in the format of `PolicyFile`.
///
/// Saving is atomic and durable: a kill or a power cut at any moment leaves the old file or the new one. The store
/// never overwrites a file it cannot read: a damaged one is first kept aside under a fresh name, and one written
/// by a newer pathmond is left alone and saving refused. Calls block on disk I/O (fsync), so a daemon makes them
/// off its event loop; they are serialized, so concurrent saves land whole, in call order.
public final class PolicyStore: Sendable {
    /// The directory holding the policy file (`--state-dir`).
    public let stateDirectory: String
    /// `<stateDirectory>/policy.json`.
    public let path: String

    private static let fileName = "policy.json"
    /// A save in progress; whatever a crash leaves under this prefix is removed at load.
    private static let temporaryPrefix = fileName + ".tmp-"
    /// Damaged files kept aside: `policy.json.corrupt-<UTC time>[-n]`.
    private static let asidePrefix = fileName + ".corrupt-"

    /// The largest policy file read: 40 times what 10,000 remembered networks take.
    static let maximumFileSize = 4 << 20

    /// One load or save at a time: each reads the file before deciding what to do with it.
    private let lock = Lock()

    /// The store for `stateDirectory`; touches nothing until `load` or `save`.
    public init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
        self.path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + Self.fileName
    }

    /// The policy to start with, and a report when the file was not whole.
    ///
    /// A missing file (or directory) is an empty policy. A damaged or unreadable file is kept aside, renamed to
    /// `policy.json.corrupt-<time>`, and every valid entry in it is returned; so is anything that is not a regular
    /// file (a symbolic link, FIFO, directory or device) or is larger than `maximumFileSize`, unread. A file of a newer version is left in
    /// place and gives an empty policy; later saves are refused. Throws only when the state directory exists but
    /// cannot be listed.
    public func load() throws(PolicyStoreError) -> (policy: Policy, report: LoadReport?) {
        try lock.withLock { () throws(PolicyStoreError) in
            try removeTemporaries()
            switch examine() {
            case .missing:
                return (Policy(), nil)
            case .whole(let policy):
                return (policy, nil)
            case .troubled(let policy, var report):
                keepAside(&report)
                return (policy, report)
            }
        }
    }

    /// Writes `policy` atomically and durably: a new temporary file in the state directory (created 0755 if
    /// missing), written in full and fsynced, renamed over policy.json, and the directory fsynced.
    ///
    /// A damaged file found in place is kept aside first and reported in the result. Throws `.refused`, writing
    /// nothing, while policy.json is of a newer version or is damaged and cannot be kept aside.
    @discardableResult
    public func save(_ policy: Policy) throws(PolicyStoreError) -> LoadReport? {
        try lock.withLock { () throws(PolicyStoreError) in
            do throws(StateFileError) {
                try FileSystem.createDirectories(stateDirectory)
            } catch {
                throw PolicyStoreError(error)
            }
            var asideReport: LoadReport?
            if case .troubled(_, var report) = examine() {
                keepAside(&report)
                guard !report.isReadOnly else { throw .refused(path: path, reason: Self.refusal(report)) }
                asideReport = report
            }
            do throws(StateFileError) {
                try StateFileWriter.replace(
                    path, with: PolicyFile.encode(policy), mode: 0o644, durable: true,
                    temporaryName: TemporaryName(prefix: Self.temporaryPrefix))
            } catch {
                throw PolicyStoreError(error)
            }
            return asideReport
        }
    }

    /// What is at `path` now.
    private enum Examination {
        case missing
        case whole(Policy)
        /// Damaged, unreadable or newer: what can be used, and the report (not yet kept aside).
        case troubled(Policy, LoadReport)
    }

    private func examine() -> Examination {
        let bytes: [UInt8]
        do {
            bytes = try StateFileReader.read(path, limit: Self.maximumFileSize)
        } catch {
            let problem: LoadReport.Problem
            let reason: String
            switch error {
            case .system(let number) where number == .noSuchFileOrDirectory:
                return .missing
            case .system(let number):
                problem = .unreadable(errno: number.rawValue)
                reason = "it cannot be read: \(PolicyStoreError.message(for: number.rawValue))"
            case .symbolicLink:
                problem = .notRegularFile
                reason = "it is a symbolic link, which pathmond does not follow"
            case .notRegularFile(let kind):
                problem = .notRegularFile
                reason = "it is \(kind), not a regular file"
            case .tooLarge(let size, let limit):
                problem = .tooLarge
                reason = "it is \(size) bytes, more than the \(limit) a policy file may have"
            }
            let report = LoadReport(
                path: path, problem: problem, reason: reason, details: [reason], recoveredNetworks: 0)
            return .troubled(Policy(), report)
        }
        do {
            return .whole(try PolicyFile.decode(bytes))
        } catch .newerVersion(let version) {
            let reason = PolicyFileError.newerVersion(version).description
            let report = LoadReport(
                path: path, problem: .newerVersion(version), reason: reason, details: [reason], recoveredNetworks: 0)
            return .troubled(Policy(), report)
        } catch {
            let (policy, problems) = PolicyFile.decodeRecovering(bytes)
            let report = LoadReport(
                path: path, problem: .damaged, reason: problems.first ?? error.description,
                details: problems.isEmpty ? [error.description] : problems, recoveredNetworks: policy.networks.count)
            return .troubled(policy, report)
        }
    }

    /// Renames a damaged or unreadable file to a fresh `policy.json.corrupt-…` name, durably, and records where
    /// (or why not) in the report. A newer version's file stays where its own pathmond will look for it.
    private func keepAside(_ report: inout LoadReport) {
        if case .newerVersion = report.problem { return }
        let stem = stateDirectory + "/" + Self.asidePrefix + FileSystem.timestamp()
        var attempt = 0
        while true {
            let destination = attempt == 0 ? stem : "\(stem)-\(attempt)"
            do throws(StateFileError) {
                try FileSystem.move(path, toFreshName: destination)
                try FileSystem.syncDirectory(stateDirectory)
                report.keptAsidePath = destination
                return
            } catch  where error == StateFileError(.link, path: destination, errno: EEXIST) && attempt < 1000 {
                attempt += 1
            } catch {
                report.keepAsideFailure = PolicyStoreError(error)
                return
            }
        }
    }

    private static func refusal(_ report: LoadReport) -> String {
        if case .newerVersion(let version) = report.problem {
            return "has format version \(version), written by a newer pathmond; upgrade pathmond or move the file away"
        }
        return "is damaged and could not be kept aside (\(report.keepAsideFailure.map { "\($0)" } ?? "unknown"))"
    }

    /// Removes what saves interrupted by a crash left: their rename never happened, so no caller was told they
    /// succeeded, and policy.json is still the last complete save.
    private func removeTemporaries() throws(PolicyStoreError) {
        do throws(StateFileError) {
            for name in try FileSystem.names(in: stateDirectory) where name.hasPrefix(Self.temporaryPrefix) {
                try FileSystem.remove(stateDirectory + "/" + name)
            }
        } catch  where error.operation == .listDirectory && error.errno == ENOENT {
            return
        } catch {
            throw PolicyStoreError(error)
        }
    }
}

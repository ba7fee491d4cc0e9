// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The Varlink interface of pathmond's dispatcher (`pathmond-dispatcher`), on
/// /run/pathmond-dispatcher/io.pathmond.Dispatcher: `pathctl check` registers a skipped run there, `pathctl
/// deferred` lists and forgets them. The unit a run belongs to is found from the caller's cgroup, never from a
/// parameter; any user may defer, as the ExecCondition= process systemd runs for that unit now (its ControlPID);
/// only root (SO_PEERCRED) may list and forget.
public enum DispatcherProtocol {
    /// Where the dispatcher listens (mode 0666 in a 0755 directory, both root's).
    public static let socketPath = "/run/pathmond-dispatcher/io.pathmond.Dispatcher"
    public static let interface = "io.pathmond.Dispatcher"

    /// Methods, by their full names.
    public enum Method: String, Sendable, CaseIterable {
        /// The caller, a unit's `ExecCondition=` process, found the path metered: remember the unit's run.
        /// Parameters `DeferParameters`, reply `DeferReply`.
        case deferRun = "io.pathmond.Dispatcher.Defer"
        /// The waiting runs, oldest first. Reply `ListDeferredReply`.
        case listDeferred = "io.pathmond.Dispatcher.ListDeferred"
        /// Drops one unit's deferral. Parameters `ForgetParameters`, reply `{}`.
        case forget = "io.pathmond.Dispatcher.Forget"
    }

    /// Errors, by their full names.
    public enum ErrorName {
        /// The caller is not root, and only root may call this method (ListDeferred, Forget).
        public static let permissionDenied = "io.pathmond.Dispatcher.PermissionDenied"
        /// The caller does not run as a service's `ExecCondition=` command (a shell, a script in ExecStart=, a
        /// scope, another process of the service): parameters `Refusal`.
        public static let notACondition = "io.pathmond.Dispatcher.NotACondition"
        /// `Forget` of a unit that has no deferral.
        public static let noSuchDeferral = "io.pathmond.Dispatcher.NoSuchDeferral"
        /// The book holds `DeferralBook.capacity` units already.
        public static let tooManyDeferrals = "io.pathmond.Dispatcher.TooManyDeferrals"
        /// A method this dispatcher does not have, or parameters it cannot read.
        public static let methodNotFound = "org.varlink.service.MethodNotFound"
        public static let invalidParameter = "org.varlink.service.InvalidParameter"
    }

    /// The parameters of a refusal: why, in a sentence the caller prints (to the unit's journal).
    public struct Refusal: Codable, Sendable, Hashable {
        public var reason: String?
        public init(reason: String?) { self.reason = reason }
    }

    public struct DeferParameters: Codable, Sendable, Hashable {
        /// `pathctl check --max-deferral`, in seconds: past it the run goes ahead anyway.
        public var maxDeferralSeconds: Int64?
        public init(maxDeferralSeconds: Int64? = nil) { self.maxDeferralSeconds = maxDeferralSeconds }
    }

    /// One waiting unit on the wire (and in the dispatcher's state file).
    public struct WireDeferral: Codable, Sendable, Hashable {
        public var unit: String
        /// Seconds since the epoch of the first skipped run.
        public var since: Int64
        public var skips: Int

        public init(_ deferral: DeferralBook.Deferral) {
            unit = deferral.unit
            since = deferral.since
            skips = deferral.skips
        }

        public var deferral: DeferralBook.Deferral { .init(unit: unit, since: since, skips: skips) }
    }

    public struct DeferReply: Codable, Sendable, Hashable {
        public var deferral: WireDeferral
        /// The cap has passed: the caller lets the run go ahead now (exit 0), and the deferral is dropped.
        public var runAnyway: Bool
        public init(deferral: WireDeferral, runAnyway: Bool) {
            self.deferral = deferral
            self.runAnyway = runAnyway
        }
    }

    public struct ListDeferredReply: Codable, Sendable, Hashable {
        public var deferred: [WireDeferral]
        public init(deferred: [WireDeferral]) { self.deferred = deferred }
    }

    public struct ForgetParameters: Codable, Sendable, Hashable {
        public var unit: String
        public init(unit: String) { self.unit = unit }
    }

    /// The dispatcher's state file: a version and the waiting units, oldest first. A dispatcher reads a file of a
    /// newer version too (what it does not know is ignored): a downgrade keeps the runs.
    public struct StateFile: Codable, Sendable, Hashable {
        public var version: Int
        public var deferred: [WireDeferral]
        public static let currentVersion = 1
        public init(deferred: [WireDeferral]) {
            version = Self.currentVersion
            self.deferred = deferred
        }
    }
}

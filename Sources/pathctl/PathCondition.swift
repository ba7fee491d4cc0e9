// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What `pathctl check` and `pathctl wait` ask of the path. The exit statuses are part of the interface: systemd's
/// `ExecCondition=` skips a unit on 1–254 and fails it on 255, so no outcome may map to 255.
struct PathConditions {
    static let specs = OptionSpec.section(
        "Conditions",
        [
            .flag(
                "unmetered",
                "The path must be neither expensive (metered) nor constrained (Android's UNMETERED), nor held at a"
                    + " captive portal."),
            .flag("not-constrained", "The path must not be on a Low Data Mode network (expensive is fine)."),
        ])

    var unmetered: Bool
    var notConstrained: Bool

    init(_ arguments: ParsedArguments) {
        unmetered = arguments.flag("unmetered")
        notConstrained = arguments.flag("not-constrained")
    }

    /// Why a path fails the conditions, or nil when it meets them. The path is the one for the requirement flags
    /// (`--require`, `--family`, ...); expensive and constrained are the path's own, that of the interface the
    /// traffic takes, not whether some cheaper interface exists.
    func failure(of path: Path) -> ConditionFailure? {
        guard path.status == .satisfied else { return .unsatisfied(path.unsatisfiedReason) }
        if unmetered && path.isExpensive { return .expensive }
        if (unmetered || notConstrained) && path.isConstrained { return .constrained }
        // Work waiting for a cheap path would only fetch the portal's sign-in page.
        if unmetered && path.captivePortal == .captive { return .captivePortal }
        return nil
    }
}

/// How a path fails the conditions, with the exit status that says so.
enum ConditionFailure: Equatable {
    case unsatisfied(UnsatisfiedReason?)
    case expensive
    case constrained
    case captivePortal

    /// 1 unsatisfied, 2 expensive, 3 constrained, 4 held at a captive portal; 69 (EX_UNAVAILABLE) is pathmond not answering, 64 a usage error.
    var exitCode: ExitCode {
        switch self {
        case .unsatisfied: return ExitCode(1)
        case .expensive: return ExitCode(2)
        case .constrained: return ExitCode(3)
        case .captivePortal: return ExitCode(4)
        }
    }

    var message: String {
        switch self {
        case .unsatisfied(let reason): return "the path is unsatisfied (\(reason?.rawValue ?? "no reason given"))"
        case .expensive: return "the path is expensive (metered)"
        case .constrained: return "the path is constrained (Low Data Mode)"
        case .captivePortal: return "the path is held at a captive portal"
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import DBus
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// What a start or stop asks of a unit.
enum UnitOperation: String {
    case start = "StartUnit"
    case stop = "StopUnit"
}

/// A unit while systemd may be running its conditions: what the dispatcher checks a caller against.
struct UnitConditionState: Hashable {
    /// "condition" while its ExecCondition= commands run.
    var subState: String
    /// The service's control process (`ControlPID`): the ExecCondition= command running now; 0 when none.
    var controlProcessID: Int32
}

/// A process at the other end of the dispatcher's socket, as the system sees it now.
struct ProcessFacts: Hashable {
    /// Its systemd unit, from its cgroup (which it cannot leave): "apt-daily.service", "session-3.scope".
    var unit: String
    /// The process's effective uid now.
    var userID: UInt32
}

/// What the dispatcher asks of systemd, behind a protocol so that tests can stand in for it. Only on the loop.
protocol UnitControl: AnyObject {
    /// Queues a job for `unit` and returns the job's object path; throws what systemd answered (say,
    /// org.freedesktop.systemd1.NoSuchUnit).
    func perform(_ operation: UnitOperation, unit: String) throws -> String
    /// The unit's SubState and ControlPID; nil when systemd has no such unit loaded.
    func conditionState(of unit: String) -> UnitConditionState?
    /// Whether systemd still has the unit (a unit file, a transient or generated unit) without loading it: false
    /// only when systemd says it has none; nil when it cannot say (the bus failed).
    func exists(_ unit: String) -> Bool?
    /// The unit and uid of a process; nil when it is in no system unit or gone.
    func process(_ processID: Int32) -> ProcessFacts?
    /// Calls `handler` with a unit's name when systemd unloads it (a garbage-collected or removed unit), and with
    /// nil when a daemon-reload has finished (unit files may have gone).
    func watchUnitRemovals(_ handler: @escaping (String?) -> Void)
}

/// systemd's manager on the system bus (org.freedesktop.systemd1.Manager): starts and stops units for the
/// dispatcher, and answers who a caller is. Only on the bus connection's loop.
final class UnitManager: UnitControl {
    let bus: BusConnection
    private static let destination = "org.freedesktop.systemd1"
    private static let managerPath = "/org/freedesktop/systemd1"
    private static let manager = "org.freedesktop.systemd1.Manager"

    init(bus: BusConnection) { self.bus = bus }

    /// Queues a job for `unit` ("replace": it takes the place of a conflicting queued job, as `systemctl` does)
    /// and returns the job's object path. Does not wait for the job to finish.
    func perform(_ operation: UnitOperation, unit: String) throws -> String {
        let reply = try bus.call(
            destination: Self.destination, path: Self.managerPath, interface: Self.manager,
            member: operation.rawValue, arguments: [unit, "replace"])
        if case .objectPath(let job)? = reply.first { return job }
        return reply.first.map { "\($0)" } ?? "(no job)"
    }

    func conditionState(of unit: String) -> UnitConditionState? {
        guard
            let reply = try? bus.call(
                destination: Self.destination, path: Self.managerPath, interface: Self.manager, member: "GetUnit",
                arguments: [unit]),
            case .objectPath(let object)? = reply.first,
            case .string(let subState)? = property(object, "org.freedesktop.systemd1.Unit", "SubState")
        else { return nil }
        var controlProcessID: Int32 = 0
        if case .uint32(let pid)? = property(object, "org.freedesktop.systemd1.Service", "ControlPID") {
            controlProcessID = Int32(bitPattern: pid)
        }
        return UnitConditionState(subState: subState, controlProcessID: controlProcessID)
    }

    /// GetUnitFileState reads the unit paths (transient and generated units included) and loads nothing: a check
    /// that cannot itself make systemd load the unit and unload it again (another UnitRemoved).
    func exists(_ unit: String) -> Bool? {
        do {
            _ = try bus.call(
                destination: Self.destination, path: Self.managerPath, interface: Self.manager,
                member: "GetUnitFileState", arguments: [unit])
            return true
        } catch {
            if case .errorReply(let name, _) = error, Self.unknownUnitErrors.contains(name) { return false }
            return nil
        }
    }

    /// What GetUnitFileState answers for a unit with no file in any unit path (ENOENT, or a newer systemd's name).
    static let unknownUnitErrors: Set<String> = [
        "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.systemd1.NoSuchUnit",
    ]

    func process(_ processID: Int32) -> ProcessFacts? {
        var name: UnsafeMutablePointer<CChar>?
        guard sd_pid_get_unit(processID, &name) >= 0, let name else { return nil }
        defer { free(name) }
        guard let userID = Self.effectiveUserID(of: processID) else { return nil }
        return ProcessFacts(unit: String(cString: name), userID: userID)
    }

    /// The effective uid on the "Uid:" line of /proc/PID/status (real, effective, saved, file system): what
    /// SO_PEERCRED gave at connect. Not the owner of /proc/PID, which is root for a process that is not dumpable.
    static func effectiveUserID(of processID: Int32) -> UInt32? {
        guard let bytes = try? StateFileReader.read("/proc/\(processID)/status", limit: 1 << 16) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Uid:") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            return fields.count > 2 ? UInt32(fields[2]) : nil
        }
        return nil
    }

    /// Subscribes to the manager's signals (systemd sends UnitRemoved and Reloading on the system bus only while a
    /// client is subscribed) and follows those two.
    func watchUnitRemovals(_ handler: @escaping (String?) -> Void) {
        let rule =
            "type='signal',sender='org.freedesktop.systemd1',path='/org/freedesktop/systemd1',"
            + "interface='org.freedesktop.systemd1.Manager',member="
        // A forged signal only makes the dispatcher ask systemd about a unit: the sender need not be checked.
        try? bus.addMatch(rule + "'UnitRemoved'") { signal in
            if case .string(let unit)? = signal.body.first { handler(unit) }
        }
        try? bus.addMatch(rule + "'Reloading'") { signal in
            if case .boolean(false)? = signal.body.first { handler(nil) }
        }
        _ = try? bus.call(
            destination: Self.destination, path: Self.managerPath, interface: Self.manager, member: "Subscribe")
    }

    private func property(_ object: String, _ interface: String, _ name: String) -> BusValue? {
        guard
            let value = try? bus.call(
                destination: Self.destination, path: object, interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: [interface, name]),
            case .variant(let inner)? = value.first
        else { return nil }
        return inner
    }
}

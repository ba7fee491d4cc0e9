// SPDX-License-Identifier: Apache-2.0
import DBus

/// systemd's manager on the system bus (org.freedesktop.systemd1.Manager): starts and stops units for the
/// dispatcher. Only on the bus connection's loop.
struct UnitManager {
    let bus: BusConnection

    /// What a start or stop asks of a unit.
    enum Operation: String {
        case start = "StartUnit"
        case stop = "StopUnit"
    }

    /// Queues a job for `unit` ("replace": it takes the place of a conflicting queued job, as `systemctl` does)
    /// and returns the job's object path. Does not wait for the job to finish.
    func perform(_ operation: Operation, unit: String) throws(BusCallError) -> String {
        let reply = try bus.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
            interface: "org.freedesktop.systemd1.Manager", member: operation.rawValue, arguments: [unit, "replace"])
        if case .objectPath(let job)? = reply.first { return job }
        return reply.first.map { "\($0)" } ?? "(no job)"
    }
}

extension UnitManager {
    /// The unit's SubState ("condition" while its ExecCondition= commands run), or nil when systemd does not
    /// know the unit.
    func subState(of unit: String) -> String? {
        guard
            let reply = try? bus.call(
                destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
                interface: "org.freedesktop.systemd1.Manager", member: "GetUnit", arguments: [unit]),
            case .objectPath(let object)? = reply.first,
            let value = try? bus.call(
                destination: "org.freedesktop.systemd1", path: object, interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: ["org.freedesktop.systemd1.Unit", "SubState"]),
            case .variant(let state)? = value.first
        else { return nil }
        return state.text
    }
}

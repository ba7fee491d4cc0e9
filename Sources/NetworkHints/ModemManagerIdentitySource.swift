/// The SIM behind each modem's network interface, from ModemManager over the system bus: one
/// `ObjectManager.GetManagedObjects` call on /org/freedesktop/ModemManager1 lists every modem with its
/// properties (Ports, Sim, EquipmentIdentifier), then `Properties.GetAll` on each SIM that matters reads
/// SimIdentifier (the ICCID) and Imsi. Identifiers stay in the returned values, in memory; key them at once.
public struct ModemManagerIdentitySource: CellularIdentitySource {
    /// The system bus socket.
    public let socketPath: String
    /// The most any one read or write on the bus may take.
    public let timeout: Duration

    /// A source over the bus socket at `socketPath`.
    public init(socketPath: String = "/run/dbus/system_bus_socket", timeout: Duration = .seconds(2)) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    /// Throws `noBus` when there is no bus, `serviceNotRunning` when ModemManager is not on it (we never start
    /// it), `protocolFailure` for anything else.
    public func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable)
        -> [String: CellularSubscriber]
    {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(socketPath: socketPath, timeout: timeout)
        } catch {
            throw .noBus(String(describing: error))
        }
        let wanted = Set(interfaces)
        do {
            let reply = try connection.call(
                destination: ModemManagerObjects.service, path: ModemManagerObjects.rootPath,
                interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
            var result: [String: CellularSubscriber] = [:]
            for modem in try ModemManagerObjects.modems(fromBody: reply.body) {
                let ports = modem.networkPorts.filter(wanted.contains)
                guard !ports.isEmpty else { continue }
                var subscriber = CellularSubscriber(hardwareIdentity: modem.equipmentIdentifier.map { "imei:" + $0 })
                if let simPath = modem.simPath {
                    // A SIM that cannot be read (locked, being swapped) still leaves the hardware identity.
                    if let sim = try? connection.call(
                        destination: ModemManagerObjects.service, path: simPath,
                        interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                        body: [.string(ModemManagerObjects.simInterface)], signature: "s"),
                        let identity = try? ModemManagerObjects.sim(fromBody: sim.body)
                    {
                        subscriber.iccid = identity.iccid
                        subscriber.imsi = identity.imsi
                    }
                }
                for port in ports { result[port] = subscriber }
            }
            return result
        } catch .errorReply(let name, _) where ModemManagerObjects.absentServiceErrors.contains(name) {
            throw .serviceNotRunning
        } catch {
            throw .protocolFailure(String(describing: error))
        }
    }
}

/// What one ModemManager modem object says about itself.
struct ModemRecord: Hashable, Sendable {
    /// The modem's object path (/org/freedesktop/ModemManager1/Modem/N).
    var path: String
    /// Its network interfaces: ports of type MM_MODEM_PORT_TYPE_NET.
    var networkPorts: [String]
    /// Its active SIM's object path; nil when there is none ("/").
    var simPath: String?
    /// The IMEI (or MEID/ESN): the modem's own identity.
    var equipmentIdentifier: String?
}

/// Pure decoding of ModemManager's D-Bus replies.
enum ModemManagerObjects {
    static let service = "org.freedesktop.ModemManager1"
    static let rootPath = "/org/freedesktop/ModemManager1"
    static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    static let simInterface = "org.freedesktop.ModemManager1.Sim"
    /// MM_MODEM_PORT_TYPE_NET in ModemManager-enums.h.
    static let networkPortType: UInt32 = 2
    /// What the bus answers when nobody owns a name and it may not start one.
    static let absentServiceErrors: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    /// The modems in a GetManagedObjects reply body (`a{oa{sa{sv}}}`): objects without the Modem interface (SIMs,
    /// bearers) are skipped; a property of the wrong type counts as absent.
    static func modems(fromBody body: [DBusValue]) throws(DBusError) -> [ModemRecord] {
        guard body.count == 1, case .dictionary(.objectPath, _, let objects) = body[0] else {
            throw .unexpectedReply("GetManagedObjects body is not a{oa{sa{sv}}}")
        }
        var modems: [ModemRecord] = []
        for object in objects {
            guard let path = object.key.text, let interfaces = object.value.dictionaryByText,
                let properties = interfaces[modemInterface]?.dictionaryByText
            else { continue }
            modems.append(record(path: path, properties: properties.mapValues(\.unwrapped)))
        }
        return modems
    }

    private static func record(path: String, properties: [String: DBusValue]) -> ModemRecord {
        var ports: [String] = []
        if case .array(_, let entries) = properties["Ports"] {
            for case .structure(let fields) in entries where fields.count == 2 {
                if let name = fields[0].text, fields[1].uint32Value == networkPortType { ports.append(name) }
            }
        }
        var simPath: String?
        if case .objectPath(let sim) = properties["Sim"], sim != "/" { simPath = sim }
        var equipment: String?
        if case .string(let text) = properties["EquipmentIdentifier"], !text.isEmpty { equipment = text }
        return ModemRecord(path: path, networkPorts: ports, simPath: simPath, equipmentIdentifier: equipment)
    }

    /// ICCID and IMSI from a `Properties.GetAll` reply body (`a{sv}`) for the Sim interface; empty strings (a SIM
    /// ModemManager has not read yet) are absent.
    static func sim(fromBody body: [DBusValue]) throws(DBusError) -> (iccid: String?, imsi: String?) {
        guard body.count == 1, let properties = body[0].dictionaryByText else {
            throw .unexpectedReply("GetAll body is not a{sv}")
        }
        func text(_ name: String) -> String? {
            guard case .string(let value) = properties[name]?.unwrapped, !value.isEmpty else { return nil }
            return value
        }
        return (text("SimIdentifier"), text("Imsi"))
    }
}

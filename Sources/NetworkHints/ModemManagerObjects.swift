// SPDX-License-Identifier: Apache-2.0
import DBus

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
    /// The 3GPP registration state (Modem3gpp's RegistrationState); nil for a modem without the interface.
    var registrationState: UInt32?
    /// The access technologies in use (MMModemAccessTechnology flags); 0 when unknown.
    var accessTechnologies: UInt32 = 0
    /// Signal quality in percent, when ModemManager calls the figure recent.
    var signalQuality: UInt8?

    /// The radio facts, apart from the identity.
    var radio: CellularRadio {
        CellularRadio(
            isRoaming: registrationState.map(RegistrationState.isRoaming) ?? false,
            accessTechnologies: accessTechnologies, signalQuality: signalQuality)
    }
}

/// A SIM's identifiers, in memory only: they become a key at once and are never stored or shown.
struct SimRecord: Hashable, Sendable {
    var iccid: String?
    var imsi: String?
}

/// Pure decoding of ModemManager's D-Bus answers and signals (ModemManager's D-Bus API reference).
enum ModemManagerObjects {
    static let service = "org.freedesktop.ModemManager1"
    static let rootPath = "/org/freedesktop/ModemManager1"
    static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    static let simInterface = "org.freedesktop.ModemManager1.Sim"
    static let modem3gppInterface = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    /// MM_MODEM_PORT_TYPE_NET in ModemManager-enums.h.
    static let networkPortType: UInt32 = 2

    /// The modems in a GetManagedObjects reply body (`a{oa{sa{sv}}}`): objects without the Modem interface (SIMs,
    /// bearers) are skipped; a property of the wrong type counts as absent.
    static func modems(fromBody body: [BusValue]) throws(BusError) -> [ModemRecord] {
        guard body.count == 1, case .dictionary(let objects) = body[0] else { throw .badMessage }
        var modems: [ModemRecord] = []
        for object in objects {
            guard case .objectPath(let path) = object.key, let interfaces = object.value.dictionaryByText,
                let modem = modem(path: path, interfaces: interfaces)
            else { continue }
            modems.append(modem)
        }
        return modems
    }

    /// A modem from one object's interfaces and their properties (`a{sa{sv}}`, as in GetManagedObjects and
    /// InterfacesAdded); nil when the object is not a modem.
    static func modem(path: String, interfaces: [String: BusValue]) -> ModemRecord? {
        guard let properties = interfaces[modemInterface]?.dictionaryByText else { return nil }
        var record = ModemRecord(path: path, networkPorts: [], simPath: nil, equipmentIdentifier: nil)
        apply(properties, to: &record)
        if let gpp = interfaces[modem3gppInterface]?.dictionaryByText { apply3gpp(gpp, to: &record) }
        return record
    }

    /// Updates a modem from the properties given (all of them, or those a PropertiesChanged carries).
    static func apply(_ properties: [String: BusValue], to record: inout ModemRecord) {
        if case .array(let entries) = properties["Ports"]?.unwrapped {
            record.networkPorts = entries.compactMap { entry in
                guard case .structure(let fields) = entry, fields.count == 2, let name = fields[0].text,
                    fields[1].uint32Value == networkPortType
                else { return nil }
                return name
            }
        }
        if case .objectPath(let sim) = properties["Sim"]?.unwrapped { record.simPath = sim == "/" ? nil : sim }
        if case .string(let text) = properties["EquipmentIdentifier"]?.unwrapped {
            record.equipmentIdentifier = text.isEmpty ? nil : text
        }
        if let technologies = properties["AccessTechnologies"]?.unwrapped.uint32Value {
            record.accessTechnologies = technologies
        }
        // SignalQuality is (ub): percent, and whether the figure is recent. A stale one is no figure; a percent
        // above 100 is nonsense and is dropped rather than clamped.
        if case .structure(let fields) = properties["SignalQuality"]?.unwrapped, fields.count == 2 {
            if let percent = fields[0].uint32Value, case .boolean(true) = fields[1], percent <= 100 {
                record.signalQuality = UInt8(percent)
            } else {
                record.signalQuality = nil
            }
        }
    }

    /// Updates a modem from its Modem3gpp properties: the registration state (roaming or home).
    static func apply3gpp(_ properties: [String: BusValue], to record: inout ModemRecord) {
        if let state = properties["RegistrationState"]?.unwrapped.uint32Value { record.registrationState = state }
    }

    /// Updates a SIM from its properties (`a{sv}` of the Sim interface); empty strings (a SIM ModemManager has not
    /// read yet) are absent.
    static func apply(_ properties: [String: BusValue], to sim: inout SimRecord) {
        func text(_ name: String) -> String?? {
            guard case .string(let value) = properties[name]?.unwrapped else { return .none }
            return .some(value.isEmpty ? nil : value)
        }
        if let iccid = text("SimIdentifier") { sim.iccid = iccid }
        if let imsi = text("Imsi") { sim.imsi = imsi }
    }
}

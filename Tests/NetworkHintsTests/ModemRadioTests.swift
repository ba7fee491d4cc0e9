// SPDX-License-Identifier: Apache-2.0
import DBus
import FuzzSupport
import Testing

@testable import NetworkHints

/// The radio facts read from ModemManager's properties (its D-Bus API reference): Modem3gpp's RegistrationState,
/// the modem's AccessTechnologies and SignalQuality, in the shapes the bus delivers them (every value in a
/// variant), and anything else ignored.
@Suite struct ModemRadioTests {
    static let path = "/org/freedesktop/ModemManager1/Modem/0"

    static func quality(_ percent: UInt32, recent: Bool) -> BusValue {
        .variant(.structure([.uint32(percent), .boolean(recent)]))
    }

    static func modem(registration: BusValue?, extra: [String: BusValue] = [:]) -> ModemRecord? {
        var modemProperties: [BusDictionaryEntry] = [
            BusDictionaryEntry(
                key: .string("Ports"),
                value: .variant(.array([.structure([.string("wwan0"), .uint32(2)])]))),
            BusDictionaryEntry(key: .string("AccessTechnologies"), value: .variant(.uint32(1 << 14))),
            BusDictionaryEntry(key: .string("SignalQuality"), value: quality(63, recent: true)),
        ]
        for (name, value) in extra { modemProperties.append(BusDictionaryEntry(key: .string(name), value: value)) }
        var interfaces: [String: BusValue] = [ModemManagerObjects.modemInterface: .dictionary(modemProperties)]
        if let registration {
            interfaces[ModemManagerObjects.modem3gppInterface] = .dictionary([
                BusDictionaryEntry(key: .string("RegistrationState"), value: registration)
            ])
        }
        return ModemManagerObjects.modem(path: path, interfaces: interfaces)
    }

    /// Every MMModem3gppRegistrationState: roaming, roaming SMS-only and roaming CSFB-not-preferred roam.
    @Test(arguments: Array(UInt32(0)...12))
    func registrationStates(state: UInt32) throws {
        let radio = try #require(Self.modem(registration: .variant(.uint32(state)))).radio
        #expect(radio.isRoaming == [5, 7, 10].contains(state))
        #expect(radio.accessTechnologies == 1 << 14)
        #expect(radio.signalQuality == 63)
    }

    @Test func aModemWithoutModem3gppOrWithAStrangeStateIsNotRoaming() throws {
        #expect(try #require(Self.modem(registration: nil)).radio.isRoaming == false)
        #expect(try #require(Self.modem(registration: .variant(.int32(5)))).radio.isRoaming == false)
        #expect(try #require(Self.modem(registration: .variant(.string("roaming")))).radio.isRoaming == false)
    }

    @Test func aStaleOrImpossibleSignalIsNoFigure() throws {
        var record = try #require(Self.modem(registration: nil))
        ModemManagerObjects.apply(["SignalQuality": Self.quality(40, recent: false)], to: &record)
        #expect(record.signalQuality == nil)
        ModemManagerObjects.apply(["SignalQuality": Self.quality(41, recent: true)], to: &record)
        #expect(record.signalQuality == 41)
        ModemManagerObjects.apply(["SignalQuality": Self.quality(101, recent: true)], to: &record)
        #expect(record.signalQuality == nil)
        // A property of another shape leaves the figure alone, as the other decoders do.
        ModemManagerObjects.apply(["SignalQuality": Self.quality(41, recent: true)], to: &record)
        ModemManagerObjects.apply(["SignalQuality": .variant(.uint32(7))], to: &record)
        #expect(record.signalQuality == 41)
    }

    @Test func propertiesChangedUpdatesOnlyWhatItCarries() throws {
        var record = try #require(Self.modem(registration: .variant(.uint32(1))))
        ModemManagerObjects.apply3gpp(["RegistrationState": .variant(.uint32(5))], to: &record)
        #expect(record.radio == CellularRadio(isRoaming: true, accessTechnologies: 1 << 14, signalQuality: 63))
        ModemManagerObjects.apply(["AccessTechnologies": .variant(.uint32(1 << 15))], to: &record)
        #expect(record.radio == CellularRadio(isRoaming: true, accessTechnologies: 1 << 15, signalQuality: 63))
        ModemManagerObjects.apply3gpp(["OperatorCode": .variant(.string("26201"))], to: &record)
        #expect(record.radio.isRoaming)
    }

    /// Random property dictionaries, of the right names with values of every shape and of other names: the decoder
    /// never traps and keeps its invariants (a signal figure is a percent).
    @Test func radioDecodingSurvivesRandomProperties() {
        var random = FuzzRandom(seed: 0x726f_616d)
        let names = [
            "RegistrationState", "AccessTechnologies", "SignalQuality", "Ports", "Sim", "EquipmentIdentifier", "",
            "signalquality",
        ]
        func value(_ depth: Int) -> BusValue {
            switch random.below(depth > 2 ? 8 : 11) {
            case 0: return .uint32(UInt32(truncatingIfNeeded: random.next()) % (random.chance(50) ? 16 : .max))
            case 1: return .boolean(random.chance(50))
            case 2: return .int32(Int32(truncatingIfNeeded: random.next()))
            case 3: return .string(random.pick(["", "roaming", "/", "wwan0"]))
            case 4: return .objectPath(random.pick(["/", "/org/freedesktop/ModemManager1/SIM/1"]))
            case 5: return .byte(UInt8(truncatingIfNeeded: random.next()))
            case 6: return .double(Double(random.below(300)) - 100)
            case 7: return .unixFD
            case 8: return .variant(value(depth + 1))
            case 9: return .structure((0..<random.below(4)).map { _ in value(depth + 1) })
            default: return .array((0..<random.below(4)).map { _ in value(depth + 1) })
            }
        }
        var accepted = 0
        for _ in 0..<100_000 {
            var properties: [String: BusValue] = [:]
            for _ in 0..<random.below(4) { properties[random.pick(names)] = value(0) }
            var record = ModemRecord(path: Self.path, networkPorts: [], simPath: nil, equipmentIdentifier: nil)
            ModemManagerObjects.apply(properties, to: &record)
            ModemManagerObjects.apply3gpp(properties, to: &record)
            let radio = record.radio
            #expect((radio.signalQuality ?? 0) <= 100)
            if radio != CellularRadio() { accepted += 1 }
        }
        #expect(accepted > 1000 && accepted < 100_000)
    }
}

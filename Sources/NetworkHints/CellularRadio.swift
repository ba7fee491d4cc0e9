// SPDX-License-Identifier: Apache-2.0
/// What ModemManager says about a modem's radio link: whether it is registered roaming, by which access
/// technology it is attached, and how strong its signal is. Unlike `CellularSubscriber` nothing here identifies
/// anyone, so it may be logged.
public struct CellularRadio: Sendable, Hashable {
    /// The modem is registered on a visited network (3GPP registration state roaming, roaming SMS-only or roaming
    /// with CSFB not preferred).
    public var isRoaming: Bool
    /// MMModemAccessTechnology flags of the current attachment; 0 when unknown.
    public var accessTechnologies: UInt32
    /// Signal quality in percent (ModemManager's SignalQuality), when ModemManager has a recent figure.
    public var signalQuality: UInt8?

    public init(isRoaming: Bool = false, accessTechnologies: UInt32 = 0, signalQuality: UInt8? = nil) {
        self.isRoaming = isRoaming
        self.accessTechnologies = accessTechnologies
        self.signalQuality = signalQuality
    }
}

/// MMModem3gppRegistrationState values (ModemManager-enums.h) that mean roaming.
enum RegistrationState {
    static let roaming: UInt32 = 5
    static let roamingSMSOnly: UInt32 = 7
    static let roamingCSFBNotPreferred: UInt32 = 10

    static func isRoaming(_ state: UInt32) -> Bool {
        state == roaming || state == roamingSMSOnly || state == roamingCSFBNotPreferred
    }
}

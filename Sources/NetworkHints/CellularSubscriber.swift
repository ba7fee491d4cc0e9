// SPDX-License-Identifier: Apache-2.0
/// What a cellular identity source knows about the modem behind one interface. It holds identifiers in clear, so
/// it lives in memory only: turn it into a key with `SubscriberKeyer` at once, and never log or encode it.
public struct CellularSubscriber: Sendable, Hashable, CustomStringConvertible {
    /// The SIM's ICCID, when the SIM could be read.
    public var iccid: String?
    /// The SIM's IMSI, when the SIM could be read.
    public var imsi: String?
    /// The modem's stable hardware identity (an IMEI, or USB/PCI identity from sysfs), when known.
    public var hardwareIdentity: String?

    /// A subscriber from whatever the source could read.
    public init(iccid: String? = nil, imsi: String? = nil, hardwareIdentity: String? = nil) {
        self.iccid = iccid
        self.imsi = imsi
        self.hardwareIdentity = hardwareIdentity
    }

    /// Says which identifiers are present, never their values: string interpolation in a log line stays safe.
    public var description: String {
        let present = [("iccid", iccid), ("imsi", imsi), ("hardware", hardwareIdentity)]
            .filter { $0.1 != nil }.map(\.0)
        return "CellularSubscriber(\(present.isEmpty ? "nothing" : present.joined(separator: ", ")))"
    }
}

/// Why a source has nothing to say: soft conditions a daemon logs once and works around.
public enum CellularIdentityUnavailable: Error, Sendable, Hashable {
    /// The system bus socket is missing or refused the connection (no D-Bus on this machine).
    case noBus(String)
    /// ModemManager is not running (the bus knows no owner of its name, and we do not start it).
    case serviceNotRunning
    /// The bus or the service answered something we could not use.
    case protocolFailure(String)
}

/// A source of cellular identities, by interface name: ModemManager over D-Bus, sysfs, or a test double.
/// Sources that the machine cannot have (a modem) sit behind this protocol so the daemon is tested without one.
public protocol CellularIdentitySource: Sendable {
    /// The subscribers of those of `interfaces` the source knows, by interface name; throws
    /// `CellularIdentityUnavailable` when the source itself is absent. Blocking: call it off the event loop.
    func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable) -> [String:
        CellularSubscriber]
}

/// Tries sources in order, interface by interface: ModemManager's answer wins, sysfs fills what it misses, and
/// an absent source is skipped.
public struct FallbackCellularIdentitySource: CellularIdentitySource {
    /// The sources, best first.
    public let sources: [any CellularIdentitySource]

    /// A source that asks `sources` in order.
    public init(_ sources: [any CellularIdentitySource]) {
        self.sources = sources
    }

    public func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable)
        -> [String: CellularSubscriber]
    {
        var result: [String: CellularSubscriber] = [:]
        var lastFailure: CellularIdentityUnavailable?
        var anyAnswered = false
        for source in sources {
            do {
                let found = try source.subscribers(forInterfaces: interfaces)
                anyAnswered = true
                result.merge(found) { earlier, later in
                    // Field by field: a SIM ModemManager could not read still gets sysfs's hardware identity.
                    CellularSubscriber(
                        iccid: earlier.iccid ?? later.iccid, imsi: earlier.imsi ?? later.imsi,
                        hardwareIdentity: earlier.hardwareIdentity ?? later.hardwareIdentity)
                }
            } catch {
                lastFailure = error
            }
        }
        if !anyAnswered, let lastFailure { throw lastFailure }
        return result
    }
}

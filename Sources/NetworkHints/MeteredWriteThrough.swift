// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What pathmond does to NetworkManager's metered setting of each interface (`[networkmanager] write-metered`),
/// decided purely: pathmond's reasons and NetworkManager's devices in, actions out; `NetworkManagerMeteredWriter`
/// performs them on the bus and reports back.
///
/// pathmond writes only where NetworkManager's applied connection says metered "unknown" (the profile's default):
/// a yes or no there was set in NetworkManager, by the user or a profile, and stays. What pathmond wrote it gives
/// back when its reason ends, when write-through is turned off, and when it stops. NetworkManager's Metered for an
/// interface pathmond wrote is pathmond's own voice, not a detection: `discounted` names those interfaces, so that
/// pathmond does not read its own write back as a reason.
public struct MeteredWriteThrough: Sendable, Equatable {
    /// NetworkManager's `connection.metered` values (NMMetered as a setting: no guesses).
    public enum SettingValue: Int32, Sendable {
        case unknown = 0
        case yes = 1
        case no = 2
    }

    public enum Action: Hashable, Sendable {
        /// Set the applied connection on the interface to metered yes, if it still says unknown.
        case write(interface: String)
        /// Set it back to `value`, if it still says yes.
        case restore(interface: String, value: SettingValue)
    }

    /// One interface pathmond changed (or is changing).
    struct Entry: Equatable, Sendable {
        /// What the applied connection said before.
        var original: SettingValue
        /// NetworkManager has been seen saying metered since the write: a later other value is someone else's.
        var confirmed = false
    }

    /// Interfaces written, by name.
    private(set) var written: [String: Entry] = [:]
    /// Interfaces with a call on the way: decided again only once it has finished.
    private(set) var pending: Set<String> = []
    /// Interfaces where NetworkManager said yes or no itself, or the write failed: left alone until pathmond's
    /// reason goes away, or, for a failed write, until `retry`.
    private(set) var declined: Set<String> = []
    /// Writes that failed (refused by NetworkManager or polkit, or the call failed), by interface, with how many in a
    /// row: unlike a value set in NetworkManager, tried again after `retries`' wait, so that an authorization that
    /// appears later (polkitd started after pathmond, a rule installed) is used without a new reason.
    private(set) var failures: [String: Int] = [:]

    /// The wait before a failed write is tried again: quick at first, then at most a minute apart.
    public static let retries = RetryBackoff(first: .seconds(2), longest: .seconds(60))

    public init() {}

    /// Interfaces whose NetworkManager Metered is pathmond's own write (or about to be).
    public var discounted: Set<String> { Set(written.keys).union(pending) }

    /// The actions that bring NetworkManager in line: `wanted` are the interfaces pathmond finds expensive or
    /// constrained for its own reasons, `devices` NetworkManager's Metered by interface (its managed devices).
    public mutating func decide(enabled: Bool, wanted: Set<String>, devices: [String: NetworkManagerMetered])
        -> [Action]
    {
        var actions: [Action] = []
        declined = declined.filter { enabled && wanted.contains($0) }
        failures = failures.filter { enabled && wanted.contains($0.key) }
        for name in Set(written.keys).union(wanted).sorted() where !pending.contains(name) {
            let device = devices[name]
            if var entry = written[name] {
                guard let device else {
                    written[name] = nil  // NetworkManager no longer has the device: nothing to give back
                    continue
                }
                if device.isMetered {
                    entry.confirmed = true
                    written[name] = entry
                } else if entry.confirmed {
                    // Someone else changed it since (or the device reconnected): theirs now, decided afresh below.
                    written[name] = nil
                }
                if let entry = written[name] {
                    if !enabled || !wanted.contains(name) {
                        pending.insert(name)
                        actions.append(.restore(interface: name, value: entry.original))
                    }
                    continue
                }
            }
            if enabled, wanted.contains(name), let device, !device.isMetered, !declined.contains(name) {
                pending.insert(name)
                actions.append(.write(interface: name))
            }
        }
        return actions
    }

    /// A write finished: `original` is what the connection said (nil: the write failed or was not made).
    public mutating func wrote(_ name: String, original: SettingValue?, madeChange: Bool) {
        pending.remove(name)
        if madeChange, let original {
            written[name] = Entry(original: original)
            failures[name] = nil
        } else {
            declined.insert(name)
            failures[name] = original == nil ? failures[name, default: 0] + 1 : nil
        }
    }

    /// How long to wait before the failed write on `name` is tried again; nil when none failed there.
    public func retryDelay(for name: String) -> Duration? {
        failures[name].map { Self.retries.delay(afterFailures: $0) }
    }

    /// The wait for a failed write is over: the next `decide` writes again if pathmond's reason still holds. A value
    /// NetworkManager holds itself stays declined.
    public mutating func retry(_ name: String) {
        if failures[name] != nil { declined.remove(name) }
    }

    /// A restore finished (or was found unnecessary): the interface is NetworkManager's alone again.
    public mutating func restored(_ name: String) {
        pending.remove(name)
        written[name] = nil
    }

    /// Everything written, for the synchronous restore at stop.
    public var writtenOriginals: [String: SettingValue] { written.mapValues(\.original) }
}

// SPDX-License-Identifier: Apache-2.0
import PathModel

/// An Ethernet link's negotiated speed and duplex, as sysfs shows them (/sys/class/net/NAME/speed and duplex, the
/// figures ethtool prints). The kernel refuses to read them (EINVAL) while the link has no carrier, and a driver that
/// does not know says -1 and "unknown": all of these are no figure.
public enum EthernetLink {
    /// The figures of the interface `name` under `sysfsRoot`; nil when the speed is unknown.
    public static func quality(sysfsRoot: String, name: String) -> LinkQuality? {
        // The kernel's dev_valid_name forbids "/" and the dot names: anything else could escape the root.
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else { return nil }
        let directory = sysfsRoot + "/" + name
        return quality(
            speed: HintFiles.readText(directory + "/speed", maximumSize: 64),
            duplex: HintFiles.readText(directory + "/duplex", maximumSize: 64))
    }

    /// The figures from the two files' text: a speed in Mb/s ("1000\n"), a duplex ("full", "half", "unknown").
    static func quality(speed: String?, duplex: String?) -> LinkQuality? {
        guard let text = speed?.trimmingNewline, let megabits = Int64(text), megabits > 0, megabits <= UInt32.max
        else { return nil }
        let fullDuplex: Bool? =
            switch duplex?.trimmingNewline {
            case "full": true
            case "half": false
            default: nil
            }
        return LinkQuality(source: .ethernet, speedMbps: UInt32(megabits), isFullDuplex: fullDuplex)
    }
}

extension String {
    /// Without the one newline sysfs ends an attribute with.
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}

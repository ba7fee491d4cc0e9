// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel

/// Reads what sysfs says about the device behind a network interface: the facts classification needs beyond
/// netlink (DEVTYPE, the bound driver, whether the interface sits on an 802.11 radio).
///
/// Every read is best effort: a missing or unreadable file means "unknown", because interfaces come and go
/// between the netlink message and the read, and virtual devices have no `device` at all.
public struct SysfsDeviceProbe: Sendable {
    /// The directory holding one entry per interface; a fixture tree in tests.
    public let root: String

    /// A probe of the tree at `root`.
    public init(root: String = "/sys/class/net") {
        self.root = root
    }

    /// The device facts of the interface named `name`; `.unknown` for a name that could escape `root`.
    public func facts(forInterfaceNamed name: String) -> DeviceFacts {
        guard Self.isSafeName(name) else { return .unknown }
        let directory = root + "/" + name
        return DeviceFacts(
            deviceType: SysfsFile.read(directory + "/uevent").flatMap { Self.deviceType(inUevent: $0) },
            driver: SysfsFile.linkTarget(directory + "/device/driver").flatMap(Self.lastPathComponent),
            hasWirelessExtensions: SysfsFile.entryExists(directory + "/wireless")
                || SysfsFile.entryExists(directory + "/phy80211")
        )
    }

    /// Whether a name stays inside `root`. The kernel's own rule (dev_valid_name) forbids "/", "." and "..", so
    /// anything else is either a real interface or harmlessly absent.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }

    /// DEVTYPE from a uevent file ("KEY=VALUE" lines); nil if absent or empty.
    static func deviceType(inUevent text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            let value = line.dropFirst("DEVTYPE=".count)
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// The last component of a link target such as "../../../../bus/pci/drivers/iwlwifi"; nil if there is none.
    static func lastPathComponent(_ path: String) -> String? {
        guard let component = path.split(separator: "/").last, component != ".", component != ".." else {
            return nil
        }
        return String(component)
    }
}

/// The three system calls the probe needs, each answering nil or false on any failure.
enum SysfsFile {
    /// Sysfs attributes are one page at most; the cap keeps a misdirected root from reading a huge file.
    static let maximumSize = 64 * 1024

    /// The contents of a small text file.
    static func read(_ path: String) -> String? {
        // Non-blocking: under a misdirected root a FIFO must not hang the watcher (sysfs itself has none).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while contents.count < maximumSize {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            contents.append(contentsOf: buffer[..<count])
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// The target of a symbolic link, as written (the target need not exist: only its last component matters).
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        // The buffer is PATH_MAX long, never empty, so its base address exists.
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count) }
        // A target as long as the buffer may have been cut short; sysfs targets are far shorter.
        guard count > 0, count < buffer.count else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether an entry exists, without following a final symlink (phy80211 points into the device tree).
    static func entryExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}

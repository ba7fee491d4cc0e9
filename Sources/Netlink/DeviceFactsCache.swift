// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Remembers the device facts of each link by (index, name), so sysfs is read when a link appears or is renamed,
/// not on every flag change. Used only on the watcher's queue.
struct DeviceFactsCache {
    private let lookup: @Sendable (_ index: Int32, _ name: String) -> DeviceFacts
    private var entries: [Int32: (name: String, facts: DeviceFacts)] = [:]

    init(lookup: @escaping @Sendable (_ index: Int32, _ name: String) -> DeviceFacts) {
        self.lookup = lookup
    }

    /// The link with its device facts filled in.
    mutating func enrich(_ link: Link) -> Link {
        var link = link
        enrich(&link)
        return link
    }

    /// Fills in the link's device facts.
    mutating func enrich(_ link: inout Link) {
        if let entry = entries[link.index], entry.name == link.name {
            link.device = entry.facts
        } else {
            link.device = lookup(link.index, link.name)
            entries[link.index] = (link.name, link.device)
        }
    }

    /// Adds device facts to link events, in place, and forgets removed links.
    mutating func enrich(_ events: inout [KernelEvent]) {
        guard events.contains(where: \.isLinkEvent) else { return }
        events.updateLinks({ enrich(&$0) }, removed: { entries[$0] = nil })
    }

    /// Keeps only the links a fresh dump saw, so indexes the kernel reuses are looked at anew.
    mutating func retain(only indexes: Set<Int32>) {
        entries = entries.filter { indexes.contains($0.key) }
    }
}

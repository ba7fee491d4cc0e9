// SPDX-License-Identifier: Apache-2.0
import Netlink
import PathModel

extension PathChangeCause {
    /// The cause with interface names filled in from the interfaces known after the change, or the path before it
    /// (a link that went away is named by the path it left).
    consuming func named(from interfaces: [InterfaceStatus], before: Path) -> PathChangeCause {
        guard !interfaceIndices.isEmpty else { return self }
        return named { index in
            interfaces.first { $0.link.index == index }?.link.name
                ?? before.availableInterfaces.first { $0.index == index }?.name
        }
    }
}

extension NetworkPolicy {
    /// A network's settings in the history's words: "expensive, not constrained", "expensive auto", and
    /// "ultra-constrained" when the user set it.
    var historyWords: String {
        func words(_ value: Bool?, _ name: String) -> String {
            switch value {
            case true?: return name
            case false?: return "not \(name)"
            case nil: return "\(name) auto"
            }
        }
        let base = words(isExpensive, "expensive") + ", " + words(isConstrained, "constrained")
        // Said only when set, so that the words of every other change read as they always did.
        let ultra =
            isUltraConstrained.map { base + ", " + ($0 ? "ultra-constrained" : "not ultra-constrained") } ?? base
        return dataLimit.map { ultra + ", data limit \(ByteSize.text($0.bytes)) \($0.cycle)" } ?? ultra
    }
}

extension PathChangeCause {
    /// A full re-read of the kernel's tables, and why it happened.
    static func resync(_ reason: ResyncReason) -> PathChangeCause {
        let words: String
        switch reason {
        case .initial: words = "pathmond started"
        case .overflow: words = "netlink notifications were lost"
        case .dumpInterrupted: words = "a netlink dump was interrupted"
        }
        return PathChangeCause(kind: .resync, detail: words)
    }
}

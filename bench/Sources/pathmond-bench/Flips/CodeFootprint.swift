// SPDX-License-Identifier: Apache-2.0
/// How much code a run executed: the distinct 64-byte lines of code (an x86 cache line) that held at least one
/// executed instruction, read from a callgrind dump written with `--dump-instr=yes`. An isolated change after a
/// quiet moment finds its code out of the caches, so what it costs in time follows the lines it must fetch more than
/// the instructions it runs: the instructions per flip fell by a third in stop 52 and the latency did not move.
///
/// Callgrind's own format (no library reads it; valgrind's docs, "Callgrind Format Specification"): `ob=` names the
/// object the following positions are in (`(id) path` the first time when names are compressed, `(id)` after; the
/// first time may be a `cob=`, the object of a called function);
/// with `positions: instr ...` a cost line starts with the instruction's address, absolute (`0x...`) or, when
/// positions are compressed, relative to the previous one (`+N`, `-N`, `*`); the line after `calls=` is the call's
/// inclusive cost at the call site, not an instruction of its own (the call's own line holds that).
struct CodeFootprint: Equatable {
    /// Distinct 64-byte code lines executed, all objects together.
    var lines = 0
    /// The same per object (the program, libc, libsystemd...), by the object's name as the dump gives it.
    var linesByObject: [String: Int] = [:]

    static let lineSize = 64

    /// nil when the dump holds no instruction addresses (written without `--dump-instr=yes`).
    init?(callgrindDump text: Substring) {
        var hasAddresses = false
        var object = ""
        var objectNames: [String: String] = [:]
        var address: UInt64 = 0
        var skipNext = false
        var seen: [String: Set<UInt64>] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("positions:") {
                hasAddresses = line.split(separator: " ").dropFirst().first == "instr"
                continue
            }
            if line.hasPrefix("ob=") {
                object = Self.objectName(line.dropFirst(3), names: &objectNames)
                continue
            }
            if line.hasPrefix("cob=") {
                // A called function's object: its compressed name may be given here first.
                _ = Self.objectName(line.dropFirst(4), names: &objectNames)
                continue
            }
            if line.hasPrefix("calls=") {
                skipNext = true
                continue
            }
            guard hasAddresses, let first = line.first, first.isNumber || "+-*".contains(first) else { continue }
            let token = line.prefix { $0 != " " }
            guard let position = Self.position(token, after: address) else { continue }
            address = position
            if skipNext {
                skipNext = false
                continue
            }
            seen[object, default: []].insert(position / UInt64(Self.lineSize))
        }
        guard hasAddresses else { return nil }
        for (name, lines) in seen {
            linesByObject[name] = lines.count
            self.lines += lines.count
        }
    }

    /// The size of the lines, in bytes.
    var bytes: Int { lines * Self.lineSize }

    /// `(id) name` names the id; `(id)` alone is the name given before; a name without an id stands for itself.
    private static func objectName(_ text: Substring, names: inout [String: String]) -> String {
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")") else { return String(text) }
        let id = String(text[...close])
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        if rest.isEmpty { return names[id] ?? id }
        names[id] = String(rest)
        return String(rest)
    }

    /// An absolute (`0x1f`, `31`) or relative (`+4`, `-0x4`, `*`) position.
    private static func position(_ token: Substring, after previous: UInt64) -> UInt64? {
        switch token.first {
        case "*": return previous
        case "+": return number(token.dropFirst()).map { previous &+ $0 }
        case "-": return number(token.dropFirst()).map { previous &- $0 }
        default: return number(token)
        }
    }

    private static func number(_ text: Substring) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}

// SPDX-License-Identifier: Apache-2.0
/// Reads of a service's objects still waiting for their reply, by object path. Only the reply to the latest read of
/// a path counts: a newer read of it, its removal (`drop`) or a new owner (`dropAll`) makes an older reply stale.
struct PendingReads {
    private var latest: [String: Int] = [:]
    private var count = 0

    /// Whether no read waits.
    var isEmpty: Bool { latest.isEmpty }

    /// A new read of `path`; its number, to hand to `finish`.
    mutating func start(_ path: String) -> Int {
        count += 1
        latest[path] = count
        return count
    }

    /// Whether read `number` is still the latest of `path` (its reply counts); it ends here if so.
    mutating func finish(_ path: String, _ number: Int) -> Bool {
        guard latest[path] == number else { return false }
        latest[path] = nil
        return true
    }

    mutating func drop(_ path: String) { latest[path] = nil }

    mutating func dropAll() { latest = [:] }

    /// Drops the reads of every path not in `paths`.
    mutating func keep(only paths: Set<String>) { latest = latest.filter { paths.contains($0.key) } }
}

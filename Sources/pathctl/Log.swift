// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathModel
import PathMonitor
import PathProtocol

/// `pathctl log`: the path's history as a timeline, like `journalctl -u pathmond` but with the cause of each change.
struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show when the network path changed and why.",
        discussion: """
            Each line is one change: the time, the path before and after, and the cause (kernel events and the \
            interfaces they touched, a policy change and who made it, a detection, a resolver change, a \
            configuration reload). pathmond keeps the last 1,000 changes by default ([history] entries), across \
            restarts.
            """)

    @OptionGroup var options: ConnectionOptions

    // Unconditional: the value may begin with a dash ("--since -1h", the help's own example), which the parser
    // would otherwise take for an option.
    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: ArgumentHelp(
            "Only changes at or after this time: \"2026-11-23 14:00[:SS]\", \"2026-11-23\", \"today\", \"yesterday\", "
                + "\"-1h\", \"-30min\", \"-2d\", or \"@EPOCH-SECONDS\" (local time).", valueName: "TIME"))
    var since: String?

    @Option(
        name: .shortAndLong, help: "Only changes that concern this interface (before, after or as the cause).",
        completion: Completions.interface)
    var interface: String?

    @Option(name: [.customShort("n"), .long], help: "Only the newest N stored changes.")
    var lines: Int?

    @Flag(name: .shortAndLong, help: "Keep printing changes as they happen, until interrupted.")
    var follow = false

    func validate() throws {
        if let lines, lines < 0 { throw ValidationError("--lines must be 0 or more, not \(lines)") }
        if let since {
            do {
                _ = try LogTime.parse(since, now: LogTime.now())
            } catch .notATime {
                throw ValidationError(
                    "--since \"\(HumanText.escaped(since))\" is not a time; try \"2026-11-23 14:00\","
                        + " \"today\" or \"-1h\"")
            } catch .outOfRange {
                throw ValidationError(
                    "--since \"\(HumanText.escaped(since))\" is out of range: the time must be after"
                        + " 1970-01-01")
            }
        }
    }

    func run() throws {
        let query = PathHistoryQuery(
            sinceWallMicroseconds: since.flatMap { try? LogTime.parse($0, now: LogTime.now()) }, interface: interface,
            limit: lines)
        let json = options.json
        let print = { (entry: WireHistoryEntry) in writeLine(json ? LogLine.json(entry) : LogLine.text(entry)) }
        do {
            let connection = try PathmondConnection(socketPath: options.socket)
            guard follow else {
                let reply = try connection.historyReply(query)
                let entries = reply.entries
                if entries.isEmpty && !json {
                    printError("-- no path changes recorded\(query.isFiltered ? " that match" : "") --")
                }
                if reply.truncated == true {
                    printError(
                        "-- showing the newest \(entries.count) changes; older ones did not fit in one reply "
                            + "(narrow with --since or --lines) --")
                }
                entries.forEach(print)
                return
            }
            try connection.followHistory(query) { entries in
                entries.forEach(print)
                return true
            }
        } catch {
            throw fail(error)
        }
    }
}

extension PathHistoryQuery {
    fileprivate var isFiltered: Bool { sinceWallMicroseconds != nil || interface != nil }
}

/// How `pathctl log` prints one entry.
enum LogLine {
    /// "2026-11-23 14:02:07.512 satisfied via eth0 (IPv4) → satisfied via wwan0 (expensive, IPv4) ← kernel: link on
    /// eth0".
    static func text(_ entry: WireHistoryEntry) -> String {
        let time = LogTime.format(entry.realtimeUsec)
        let before = (try? entry.before.summary()).map { HumanText.escaped($0.description) } ?? entry.before.status
        let after = (try? entry.after.summary()).map { HumanText.escaped($0.description) } ?? entry.after.status
        return "\(time) \(before) → \(after) ← \(HumanText.escaped(entry.cause.description))"
    }

    /// One entry per line, the Varlink field names (JSON lines: `jq` reads a followed log as it grows).
    static func json(_ entry: WireHistoryEntry) -> String {
        JSONOutput.encode(entry, pretty: false)
    }
}

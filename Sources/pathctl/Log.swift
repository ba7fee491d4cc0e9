// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

/// `pathctl log`: the path's history as a timeline, like `journalctl -u pathmond` but with the cause of each change.
struct Log: Verb {
    static let spec = VerbSpec(
        name: "log",
        abstract: "Show when the network path changed and why.",
        discussion: """
            Each line is one change: the time, the path before and after, and the cause (kernel events and the \
            interfaces they touched, a policy change and who made it, a detection, a resolver change, a \
            configuration reload). pathmond keeps the last 1,000 changes by default ([history] entries), across \
            restarts.
            """,
        options: ConnectionOptions.specs + [
            // The value may begin with a dash ("--since -1h", the help's own example): an option's value is the
            // next word, whatever it looks like.
            .option(
                "since", short: "s", value: "TIME",
                "Only changes at or after this time: \"2026-11-23 14:00[:SS]\", \"2026-11-23\", \"today\","
                    + " \"yesterday\", \"-1h\", \"-30min\", \"-2d\", or \"@EPOCH-SECONDS\" (local time)."),
            .option(
                "interface", short: "i", "Only changes that concern this interface (before, after or as the cause).",
                completion: .interface),
            .option("lines", short: "n", "Only the newest N stored changes."),
            .flag("follow", short: "f", "Keep printing changes as they happen, until interrupted."),
        ])

    var options: ConnectionOptions
    var since: String?
    var interface: String?
    var lines: Int?
    var follow: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        since = arguments.value("since")
        interface = arguments.value("interface")
        follow = arguments.flag("follow")
        lines = try arguments.value("lines", expected: "a number, 0 or more") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        if let since {
            do {
                _ = try LogTime.parse(since, now: LogTime.now())
            } catch {
                switch error {
                case .notATime:
                    throw UsageError(
                        "--since \"\(HumanText.escaped(since))\" is not a time; try \"2026-11-23 14:00\","
                            + " \"today\" or \"-1h\"")
                case .outOfRange:
                    throw UsageError(
                        "--since \"\(HumanText.escaped(since))\" is out of range: the time must be after"
                            + " 1970-01-01")
                }
            }
        }
    }

    func run() throws(ExitCode) {
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

// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

/// `pathctl set-limit wlan0 5GB [--cycle monthly:DAY|weekly:DAY|daily] [--warning PERCENT] | --off`: a plan's
/// data limit on a network.
struct SetLimit: Verb {
    static let spec = VerbSpec(
        name: "set-limit",
        abstract: "Set a data limit on the network on an interface (or --key), or clear it with --off.",
        discussion: """
            SIZE is in bytes, or with kB, MB, GB or TB, decimal as plans are sold (5GB is 5,000,000,000 bytes; \
            1.5GB is allowed). Bytes sent and received together count against it, as carriers bill, from the start \
            of each cycle: monthly from a day of the month (monthly:1 unless --cycle says otherwise; a day past the \
            month's end means its last day), weekly from a day of the week (1 or mon ... 7 or sun), or daily. Past \
            the warning (80 % unless --warning says otherwise) the network is constrained (Low Data Mode by \
            itself); past the limit it is also expensive, and runs deferred with pathctl check --max-deferral wait \
            anyway (see --max-deferral-past-limit). The next cycle turns it back. Root, or the configured admin \
            group; remembered like set-constrained.
            """,
        options: NetworkMark.specs(
            off: "Clear the limit.",
            extra: [
                .option("cycle", value: "cycle", "monthly:DAY (default monthly:1), weekly:DAY or daily."),
                .option("warning", value: "percent", "Percent of the limit past which it is constrained (default 80)."),
            ]),
        arguments: [
            NetworkTarget.argument,
            ArgumentSpec(name: "size", help: "The limit, e.g. 5GB, 500MB or 5000000000.", isOptional: true),
        ])

    let mark: NetworkMark
    let limit: DataLimit?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // With --key the interface is absent, so the size is the first argument.
        var adjusted = arguments
        if arguments.value("key") != nil, !arguments.positionals.isEmpty {
            adjusted.positionals.insert("", at: 0)
        }
        let sizeText = adjusted.positionals.count > 1 ? adjusted.positionals[1] : nil
        adjusted.positionals = Array(adjusted.positionals.prefix(1).filter { !$0.isEmpty })
        var mark = try NetworkMark(adjusted)
        // KEY|IFACE: a network key (it has a kind and a colon, `wifi:Home`) names a network not attached now.
        if let word = mark.target.interface, NetworkKey(word) != nil {
            mark.target.key = word
            mark.target.interface = nil
        }
        self.mark = mark
        let cycleText = arguments.value("cycle")
        let warningText = arguments.value("warning")
        if mark.off {
            guard sizeText == nil, cycleText == nil, warningText == nil else {
                throw UsageError("--off clears the limit: give no size, --cycle or --warning with it.")
            }
            limit = nil
            return
        }
        limit = try Self.limit(size: sizeText, cycle: cycleText, warning: warningText)
    }

    /// The limit the arguments describe, or a sentence saying what is wrong.
    static func limit(size: String?, cycle: String?, warning: String?) throws(UsageError) -> DataLimit {
        guard let size else { throw UsageError("Give the limit's size (e.g. 5GB), or --off to clear it.") }
        guard let bytes = DataLimit.size(size) else {
            throw UsageError(
                "'\(size)' is not a size: give whole bytes or a decimal number with kB, MB, GB or TB (e.g. 5GB, 1.5GB)."
            )
        }
        var billing = BillingCycle.calendarMonth
        if let cycle {
            guard let parsed = BillingCycle(cycle) else {
                throw UsageError(
                    "'\(cycle)' is not a cycle: give monthly:1 to monthly:31, weekly:1 to weekly:7 (or weekly:mon), or daily."
                )
            }
            billing = parsed
        }
        var percent = DataLimit.defaultWarningPercent
        if let warning {
            let digits = warning.hasSuffix("%") ? String(warning.dropLast()) : warning
            guard let parsed = Int(digits), (1...100).contains(parsed) else {
                throw UsageError("'\(warning)' is not a warning percent: give a whole number from 1 to 100.")
            }
            percent = parsed
        }
        return DataLimit(bytes: bytes, warningPercent: percent, cycle: billing)
    }

    func run() throws(ExitCode) {
        try mark.change { connection, target throws(PathmondClientError) in
            try connection.setDataLimit(limit, interface: target.interface, key: target.key)
        }
        // The network's table has no column for it: say what is now in force (not with --json, which is the reply).
        if mark.options.jsonMode == nil { print(Self.confirmation(limit)) }
    }

    /// "data limit: 5.0 GB a cycle (monthly:15), constrained past 80 %" or "data limit: none".
    static func confirmation(_ limit: DataLimit?) -> String {
        guard let limit else { return "data limit: none" }
        return "data limit: \(ByteSize.text(limit.bytes)) a cycle (\(limit.cycle)), constrained past "
            + "\(limit.warningPercent) %, expensive past the limit"
    }
}

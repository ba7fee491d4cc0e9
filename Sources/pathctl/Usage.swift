// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// `pathctl usage`: how much each network has used, today, this cycle and the cycles before.
struct Usage: Verb {
    static let spec = VerbSpec(
        name: "usage",
        abstract: "Show the bytes each network sent and received: today, this cycle and the cycles before.",
        options: ConnectionOptions.specs)

    var options: ConnectionOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
    }

    func run() throws(ExitCode) {
        do {
            let networks = try options.connect().usage()
            if let mode = options.jsonMode {
                print(JSONOutput.encode(networks, mode: mode))
            } else {
                let table = UsageTable.render(networks, width: TerminalWidth.current, legend: !options.noLegend)
                if !table.isEmpty { print(table) }
            }
        } catch {
            throw fail(error)
        }
    }
}

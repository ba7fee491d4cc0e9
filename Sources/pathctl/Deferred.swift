// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// `pathctl deferred [--forget UNIT]`: the runs `pathctl check` deferred on a metered path, which
/// pathmond-dispatcher starts once the path is cheap. Root only.
struct Deferred: Verb {
    static let spec = VerbSpec(
        name: "deferred",
        abstract: "List the runs deferred until the path is cheap, or forget one.",
        discussion: """
            A unit whose ExecCondition=/usr/bin/pathctl check --unmetered finds the path expensive or constrained \
            is remembered by pathmond-dispatcher and started once when the path turns cheap (after the settle \
            time of [discretionary] in pathmond.conf), oldest first, two seconds apart. Root only.
            """,
        options: ConnectionOptions.specs + [
            .option("forget", value: "unit", "Forget the deferred run of this unit: it is not started later."),
            .option("dispatcher-socket", "The dispatcher's socket.", completion: .file).with { $0.isHidden = true },
        ])

    var options: ConnectionOptions
    var forget: String?
    var dispatcherSocket: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        forget = arguments.value("forget")
        dispatcherSocket = arguments.value("dispatcher-socket") ?? DispatcherProtocol.socketPath
    }

    func run() throws(ExitCode) {
        let client = DispatcherClient(socketPath: dispatcherSocket)
        do {
            if let forget {
                let _: NoParameters = try client.call(
                    .forget, DispatcherProtocol.ForgetParameters(unit: forget), as: NoParameters.self)
                if !options.json { print("Forgot the deferred run of \(HumanText.escaped(forget)).") }
                return
            }
            let reply = try client.call(.listDeferred, NoParameters(), as: DispatcherProtocol.ListDeferredReply.self)
            if let mode = options.jsonMode {
                print(JSONOutput.encode(reply, mode: mode))
                return
            }
            let rows = reply.deferred.map { deferral in
                [deferral.unit, LogTime.format(deferral.since * 1_000_000), "\(deferral.skips)"]
            }
            let table = TextTable(header: ["UNIT", "DEFERRED SINCE", "SKIPS"], rows: rows)
            if !rows.isEmpty { print(table.render(width: TerminalWidth.current, legend: !options.noLegend)) }
            if !options.noLegend { print("\(rows.count) deferred run\(rows.count == 1 ? "" : "s").") }
        } catch {
            printError("pathctl: \(error)")
            switch error {
            case .permissionDenied: throw ExitCode(77)
            case .notRunning: throw ExitCode(69)
            case .remote(DispatcherProtocol.ErrorName.noSuchDeferral): throw ExitCode(1)
            default: throw ExitCode.failure
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// pathmond-bench: each subcommand measures pathmond and, in the same run, a reference (a raw netlink listener,
/// `ip monitor route`, or pathmond itself while quiet), and prints both with their ratio and the goal.
/// It never asserts on figures. `latency` is the default, so `bench/latency` keeps calling it without a name.
@main
struct PathmondBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathmond-bench",
        abstract: "pathmond's figures side by side with a reference, in one run (see bench/README.md).",
        subcommands: [
            Latency.self, Table.self, FanOut.self, Idle.self, Storm.self, DenialOfService.self, Coders.self, Flips.self,
            Attacker.self,
            HistoryAttacker.self,
            RawListen.self,
            SubscriberWorker.self,
        ],
        defaultSubcommand: Latency.self
    )
}

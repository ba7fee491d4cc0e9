// SPDX-License-Identifier: Apache-2.0
import DaemonRuntime
import Logging
import Testing

@testable import pathmond_dispatcher

/// pathmond-dispatcher's command line: the options `pathmond --dispatcher` took, and nothing of the daemon's.
struct DispatcherCommandLineTests {
    @Test func everyOptionAndItsDefault() throws {
        #expect(try DispatcherCommandLine.parse([]) == .run(DispatcherCommandLine()))
        var expected = DispatcherCommandLine()
        expected.socket = "/s"
        expected.config = "/c"
        expected.logLevel = .debug
        expected.systemBus = "unix:path=/b"
        expected.dispatcherSocket = "/ds"
        expected.dispatcherStateDir = "/dd"
        #expect(
            try DispatcherCommandLine.parse([
                "--socket", "/s", "--config=/c", "--log-level", "debug", "--system-bus", "unix:path=/b",
                "--dispatcher-socket", "/ds", "--dispatcher-state-dir", "/dd",
            ]) == .run(expected))
        #expect(try DispatcherCommandLine.parse(["--help"]) == .help)
        #expect(try DispatcherCommandLine.parse(["--version"]) == .version)
    }

    @Test func theDaemonsOptionsAndOperandsAreRefused() {
        #expect(throws: CommandLineError.unknownOption("--max-clients")) {
            try DispatcherCommandLine.parse(["--max-clients", "3"])
        }
        #expect(throws: CommandLineError.unexpectedArgument("file")) { try DispatcherCommandLine.parse(["file"]) }
        #expect(throws: CommandLineError.ambiguousOption("--dispatcher-s")) {
            try DispatcherCommandLine.parse(["--dispatcher-s", "/x"])
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

/// `pathmond --dispatcher`, as units of earlier packages run it, becomes pathmond-dispatcher with the same options.
struct DispatcherAliasTests {
    @Test func theHelperGetsTheOptionsItTakesAndNoOthers() throws {
        guard
            case .run(let line) = try DaemonCommandLine.parse([
                "--dispatcher", "--socket", "/run/p/s", "--config", "/etc/p.conf", "--log-level", "debug",
                "--dispatcher-socket", "/run/d/s", "--dispatcher-state-dir", "/var/lib/d", "--max-clients", "3",
            ])
        else { throw AliasTestError.notARun }
        #expect(line.dispatcher)
        #expect(
            DispatcherAlias.arguments(for: line) == [
                "--socket", "/run/p/s", "--dispatcher-socket", "/run/d/s", "--dispatcher-state-dir", "/var/lib/d",
                "--log-level", "debug", "--config", "/etc/p.conf",
            ])
    }

    /// In a build directory the helper is the one built beside the binary, not an installed one.
    @Test func theHelperBesideTheBinaryComesFirst() {
        let path = DispatcherAlias.helperPath()
        #expect(path.hasSuffix("/pathmond-dispatcher"))
        #expect(path != DispatcherAlias.installedPath)
    }

    private enum AliasTestError: Error { case notARun }
}

// SPDX-License-Identifier: Apache-2.0
import Logging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// How a program of pathmond's ends before SIGTERM: an exit status, and a line for stderr when nothing was logged.
package struct DaemonExit: Error {
    package let status: Int32
    package var message: String?

    package init(status: Int32, message: String? = nil) {
        self.status = status
        self.message = message
    }

    /// sysexits.h's EX_CONFIG: the units do not restart on it (RestartPreventExitStatus=), since a restart reads
    /// the same file again.
    package static let configurationExitCode: Int32 = 78
}

/// What the daemon and the dispatcher do alike as processes: read their environment, log for the journal or a
/// terminal, and write a line to stderr.
package enum DaemonProcess {
    /// The process's environment (environ(7)): NAME=value strings, the first `=` ending the name.
    package static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }

    /// Log lines for the journal when stderr is the journal (priorities, no timestamps), else for a terminal;
    /// `identifier` is SYSLOG_IDENTIFIER= of the native journal's lines.
    package static func bootstrapLogging(identifier: String, level: Logger.Level) {
        let environment = environment()
        let native = JournalLogHandler.journalIsThere(environment: environment)
        let journal = StandardErrorLogHandler.standardErrorIsJournal(environment: environment)
        LoggingSystem.bootstrap { _ in
            if native { return JournalLogHandler(identifier: identifier, logLevel: level) }
            return StandardErrorLogHandler(style: journal ? .journal : .terminal, logLevel: level)
        }
    }

    /// Ends the process with `status`, a failing one after a moment's grace when the log went to the journal's
    /// native socket: journald before systemd 254 (Debian 12 has 252) names a record's unit from the sender's /proc
    /// entry when it takes the datagram in, so a record sent just before the exit was stored without
    /// `_SYSTEMD_UNIT`, and `journalctl -u pathmond` did not show why pathmond stopped (the booted Debian 12 test
    /// found the refused configuration's record missing). Nothing says when journald has read a datagram; the grace
    /// is far longer than it takes on a live system, and a process that fails to start has nothing else to do.
    package static func exit(status: Int32) -> Never {
        if status != 0 && logsToNativeJournal { usleep(failingExitGraceMicroseconds) }
        Glibc.exit(status)
    }

    /// How long a failing exit waits for journald to take its last record in (`exit(status:)`).
    static let failingExitGraceMicroseconds: UInt32 = 250_000

    /// Whether `bootstrapLogging` picks the journal's native socket (the same test, so the same answer).
    private static let logsToNativeJournal = JournalLogHandler.journalIsThere(environment: environment())

    package static func printToStandardError(_ line: String) {
        _ = try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
    }
}

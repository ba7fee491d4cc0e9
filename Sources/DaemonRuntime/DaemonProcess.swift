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

    package static func printToStandardError(_ line: String) {
        _ = try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
    }
}

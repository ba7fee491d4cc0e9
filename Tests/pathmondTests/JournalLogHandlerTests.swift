import Logging
import Testing

@testable import pathmond

/// journald reads a line's priority from its `<N>` prefix: the mapping and the one-line rule are what make
/// `journalctl -p err -u pathmond` show pathmond's errors.
@Suite struct JournalLogHandlerTests {
    @Test(arguments: [
        (Logger.Level.critical, 2), (.error, 3), (.warning, 4), (.notice, 5), (.info, 6), (.debug, 7), (.trace, 7),
    ])
    func levelsMapToSyslogPriorities(level: Logger.Level, priority: Int) {
        #expect(JournalLogHandler.line(level: level, message: "m", metadata: [:]) == "<\(priority)>m\n")
    }

    @Test func metadataFollowsSortedAndEverythingStaysOnOneLine() {
        let line = JournalLogHandler.line(
            level: .error, message: "policy file damaged:\nline 2", metadata: ["z": "1", "a": "two\nlines"])
        #expect(line == "<3>policy file damaged: line 2 a=two lines z=1\n")
    }

    @Test func anInheritedJournalStreamThatIsNotStderrIsNotTheJournal() {
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: [:]))
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
    }
}

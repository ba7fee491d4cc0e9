// SPDX-License-Identifier: Apache-2.0
import Logging
import PathProtocol
import Testing

@testable import DaemonRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// journald reads a line's priority from its `<N>` prefix: the mapping and the one-line rule are what make
/// `journalctl -p err -u pathmond` show pathmond's errors.
@Suite struct StandardErrorLogHandlerTests {
    @Test(arguments: [
        (Logger.Level.critical, 2), (.error, 3), (.warning, 4), (.notice, 5), (.info, 6), (.debug, 7), (.trace, 7),
    ])
    func levelsMapToSyslogPriorities(level: Logger.Level, priority: Int) {
        #expect(StandardErrorLogHandler.line(level: level, message: "m", metadata: [:]) == "<\(priority)>m\n")
    }

    @Test func metadataFollowsSortedAndEverythingStaysOnOneLine() {
        let line = StandardErrorLogHandler.line(
            level: .error, message: "policy file damaged:\nline 2", metadata: ["z": "1", "a": "two\nlines"])
        #expect(line == "<3>policy file damaged: line 2 a=two lines z=1\n")
    }

    /// An interface name or an SSID may hold ESC, BEL, C1, bidirectional and invisible characters: the journal
    /// line shows them as escapes, the way pathctl prints them, instead of handing them to a terminal.
    @Test func textFromOutsideCannotDriveATerminal() {
        let line = StandardErrorLogHandler.line(
            level: .info, message: "path changed via eth0\u{1B}]0;PWN\u{07}\u{9B}",
            metadata: ["ssid": "ab\u{202E}cd\u{200B}"])
        #expect(line == #"<6>path changed via eth0\x1b]0;PWN\x07\u{009B} ssid=ab\u{202E}cd\u{200B}"# + "\n")
    }

    /// Plain ASCII skips the escaper: every ASCII character, alone and between letters, must come out as the
    /// escaper writes it (a backslash escaped, control characters shown), so the shortcut changes no line.
    @Test func theASCIIShortcutWritesWhatTheEscaperWrites() {
        for byte in UInt8(0)..<0x80 where byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r") {
            let text = "a" + String(UnicodeScalar(byte)) + "b"
            let line = StandardErrorLogHandler.line(level: .info, message: text, metadata: ["k": .string(text)])
            let escaped = HumanText.escaped(text)
            #expect(line == "<6>\(escaped) k=\(escaped)\n", "byte \(byte)")
        }
    }

    /// The plain-line test is the rule the escaper needs: printable ASCII without a backslash (the word-at-a-time
    /// scan itself is `PlainBytesTests`'), at every place of a line two words and a tail long.
    @Test func aPlainLineIsPrintableASCIIWithoutABackslash() {
        for byte in UInt8.min...UInt8.max {
            for place in [0, 9, 18] {
                var line = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                line[place] = byte
                let plain = line.withUnsafeBufferPointer(StandardErrorLogHandler.isPlainLine)
                #expect(plain == (byte >= 0x20 && byte < 0x7F && byte != 0x5C), "byte \(byte) at \(place)")
            }
        }
    }

    @Test func anInheritedJournalStreamThatIsNotStderrIsNotTheJournal() {
        #expect(!StandardErrorLogHandler.standardErrorIsJournal(environment: [:]))
        #expect(!StandardErrorLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
        #expect(!StandardErrorLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
    }

    /// The terminal style's timestamp is UTC with microseconds, written by hand: checked against known instants.
    @Test(arguments: [
        (0, 0, "1970-01-01T00:00:00.000000Z"),
        (1_795_445_191, 123_456_789, "2026-11-23T14:46:31.123456Z"),
        (951_825_599, 999_999_999, "2000-02-29T11:59:59.999999Z"),
    ])
    func terminalTimestampsAreUTC(seconds: Int, nanoseconds: Int, expected: String) {
        let time = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        #expect(StandardErrorLogHandler.timestamp(time) == expected)
    }
}

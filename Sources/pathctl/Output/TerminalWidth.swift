// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// How wide tables may be, as systemd's tools decide it: $COLUMNS when set, else the terminal's width
/// (TIOCGWINSZ) when standard output is one, else unlimited: piped output keeps every character for scripts.
enum TerminalWidth {
    static var current: Int? {
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return columns
        }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

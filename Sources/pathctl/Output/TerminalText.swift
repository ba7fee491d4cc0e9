/// Text from the daemon made safe for a terminal. Interface names, SSIDs and file names can hold any byte but
/// "/" and NUL, so a hostile name could clear the screen, move the cursor or forge lines of the table. Control
/// characters (C0, DEL, C1) become `\xNN` and a backslash `\\`, as systemd's tools print names (cescape), so
/// every name stays one visible cell and two different names never print alike.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result += "\\\\"
            } else if needsEscape(scalar) {
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f..<0xa0).contains(scalar.value) || scalar == "\\"
    }
}

// SPDX-License-Identifier: Apache-2.0
import JSON

#if canImport(Glibc)
    import Glibc
#endif

/// JSON for scripts, in networkctl's two forms: `short`, the whole value on one line, and `pretty`, indented by
/// two spaces with `"key": value` and empty containers as `[]` and `{}` (what jq prints). Keys are sorted so
/// output is stable from run to run. The project's own encoder writes the bytes JSONEncoder wrote with
/// `.sortedKeys` and `.withoutEscapingSlashes`, without Foundation (a third of pathctl's size).
enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value, mode: JSONMode) -> String {
        // Our own Codable values of strings, integers and booleans always encode: only a non-finite floating-point
        // number throws, and the values pathctl prints hold none.
        let compact = String(decoding: try! JSONValueEncoder().encode(value), as: UTF8.self)
        return mode == .pretty ? pretty(compact) : compact
    }

    /// The earlier spelling: `pretty` false is `short`.
    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) -> String {
        encode(value, mode: pretty ? .pretty : .short)
    }

    /// Re-indents compact JSON (JSONEncoder's output: no whitespace outside strings).
    static func pretty(_ compact: String) -> String {
        var result = ""
        var depth = 0
        var inString = false
        var escaped = false
        let characters = Array(compact)
        func newline() { result += "\n" + String(repeating: "  ", count: depth) }
        for (index, character) in characters.enumerated() {
            if inString {
                result.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            switch character {
            case "\"":
                inString = true
                result.append(character)
            case "{", "[":
                result.append(character)
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if next == "}" || next == "]" { continue }
                depth += 1
                newline()
            case "}", "]":
                let previous = index > 0 ? characters[index - 1] : nil
                if previous != "{" && previous != "[" {
                    depth -= 1
                    newline()
                }
                result.append(character)
            case ",":
                result.append(character)
                newline()
            case ":":
                result += ": "
            default:
                result.append(character)
            }
        }
        return result
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    writeLine(message, to: STDERR_FILENO)
}

/// Writes a whole line straight to a file descriptor: unbuffered, so `pathctl monitor | grep` sees each change
/// as it happens.
func writeLine(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}

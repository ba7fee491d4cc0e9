// SPDX-License-Identifier: Apache-2.0
/// Why a configuration file was refused. Every case names the 1-based line at fault, so that the daemon can
/// report "pathmond.conf:LINE: ..." and stop before it runs with a half-understood policy.
public enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A line that is neither blank, a comment, a `[section]` header nor a `key = value` assignment.
    case malformedLine(line: Int, text: String)
    /// A line starting with `[` that has no closing `]`, or text after the `]` that is not a comment.
    case malformedSectionHeader(line: Int, text: String)
    /// `[interface]` without a name or pattern.
    case missingPattern(line: Int)
    /// `[interface a b]`: one section matches one pattern.
    case extraPattern(line: Int, pattern: String)
    /// A `key = value` line before the first section header.
    case keyOutsideSection(line: Int, key: String)
    /// `key =` with nothing after the equals sign.
    case missingValue(line: Int, key: String)
    /// A `type` that is not one of wired, wifi, cellular, other.
    case invalidInterfaceType(line: Int, value: String)
    /// `type = loopback`: the loopback interface is recognised by its flags and never carries a path.
    case loopbackNotAllowed(line: Int)
    /// A boolean key whose value is not true, false, yes, no, 1 or 0.
    case invalidBoolean(line: Int, key: String, value: String)
    /// The same key twice in one section; `firstLine` is where it was first set.
    case duplicateKey(line: Int, key: String, firstLine: Int)
    /// A `network` that is not a network key such as `wifi:HomeNet`, `cellular:sim-...` or `wired:02:00:...`.
    case invalidNetworkKey(line: Int, value: String)
    /// An `admin-group` that is not a valid group name.
    case invalidGroupName(line: Int, value: String)
    /// An interface pattern that cannot match as written (`[interface eth[]`), and why.
    case invalidPattern(line: Int, pattern: String, reason: String)
    /// A value out of its range or of the wrong form (`[history] entries`, `[metrics] textfile`); says what fits.
    case invalidValue(line: Int, key: String, value: String, expected: String)
    /// A second `[policy]`, `[history]`, `[metrics]` or `[discretionary]` section: the later one would silently override the first.
    case duplicateSection(line: Int, name: String, firstLine: Int)

    /// The 1-based line number of the offending line.
    public var line: Int {
        switch self {
        case .malformedLine(let line, _), .malformedSectionHeader(let line, _), .missingPattern(let line),
            .extraPattern(let line, _), .keyOutsideSection(let line, _), .missingValue(let line, _),
            .invalidInterfaceType(let line, _), .loopbackNotAllowed(let line), .invalidBoolean(let line, _, _),
            .duplicateKey(let line, _, _), .invalidNetworkKey(let line, _), .invalidGroupName(let line, _),
            .invalidPattern(let line, _, _), .invalidValue(let line, _, _, _), .duplicateSection(let line, _, _):
            return line
        }
    }

    /// "line N: what is wrong", in words an administrator can act on.
    public var description: String {
        "line \(line): " + message
    }

    /// What is wrong, without the line number (for "FILE:LINE: message", as compilers write it).
    public var message: String {
        switch self {
        case .malformedLine(_, let text):
            return "expected \"[section]\" or \"key = value\", found \(Self.quoted(text))"
        case .malformedSectionHeader(_, let text):
            return "malformed section header \(Self.quoted(text)); expected \"[interface NAME-OR-PATTERN]\""
        case .missingPattern:
            return "[interface] needs an interface name or pattern, e.g. [interface wwan*]"
        case .extraPattern(_, let pattern):
            return "unexpected \(Self.quoted(pattern)): a section takes one interface name or pattern"
        case .keyOutsideSection(_, let key):
            return "\(Self.quoted(key)) is set before any section; put it under a section such as [interface NAME]"
        case .missingValue(_, let key):
            return "\(Self.quoted(key)) has no value"
        case .invalidInterfaceType(_, let value):
            return "unknown interface type \(Self.quoted(value)); expected wired, wifi, cellular or other"
        case .loopbackNotAllowed:
            return "type = loopback is not allowed; the loopback interface is recognised by its flags"
        case .invalidBoolean(_, let key, let value):
            return "\(Self.quoted(key)) must be true, false, yes, no, 1 or 0, not \(Self.quoted(value))"
        case .duplicateKey(_, let key, let firstLine):
            return "\(Self.quoted(key)) is already set in this section on line \(firstLine)"
        case .invalidNetworkKey(_, let value):
            return
                "\(Self.quoted(value)) is not a network key; expected e.g. wifi:HomeNet (SSID bytes outside printable "
                + "ASCII, and %, written %XX), cellular:ID or wired:MAC"
        case .invalidGroupName(_, let value):
            return "\(Self.quoted(value)) is not a group name"
        case .invalidPattern(_, let pattern, let reason):
            return "the interface pattern \(Self.quoted(pattern)) cannot be used: \(reason)"
        case .invalidValue(_, let key, let value, let expected):
            return "\(Self.quoted(key)) must be \(expected), not \(Self.quoted(value))"
        case .duplicateSection(_, let name, let firstLine):
            return "[\(name)] appears again (first on line \(firstLine)); set each of its keys once, in one section"
        }
    }

    /// Text from the file, quoted for a message: control characters escaped, so that the message stays one
    /// line and cannot drive a terminal, and cut to its first 64 characters, so that a 10 MB line of garbage
    /// is not repeated whole into the log.
    static func quoted(_ text: String) -> String {
        let limit = 64
        var result = "\""
        for character in text.prefix(limit) {
            if character.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f..<0xa0).contains($0.value) }) {
                for scalar in character.unicodeScalars {
                    result +=
                        scalar.value < 0x20 || (0x7f..<0xa0).contains(scalar.value)
                        ? "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                        : String(scalar)
                }
            } else {
                result.append(character)
            }
        }
        result += "\""
        let count = text.count
        if count > limit { result += " (\(count - limit) more characters not shown)" }
        return result
    }
}
